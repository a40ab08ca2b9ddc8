package dev.minibatch.runtime.io;

import dev.minibatch.runtime.io.SampleProcessor.Sample;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A file provider's samples by index, in source order, apart from its batches: what the MNIST, CSV
 * and HDF5 providers offer besides batching. Shuffle, shard and last-batch settings belong to
 * batching and do not apply here.
 */
public interface SampleSource {
  /** The number of samples in the file(s), all parts. */
  int numSamples();

  /**
   * Sample {@code i} of the source (ignoring shuffle and shard): views of each loaded array's row
   * {@code i}, or new arrays for rows decoded on the fly.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < numSamples()}
   */
  Sample sample(int i);

  /**
   * The samples in source order as a {@link Reader}, so the reader decorators and the pipeline
   * engine apply: {@code xmap(ParallelOptions, fn)} for work on worker threads (deterministic per
   * (seed, epoch, index) for any number of workers), {@code map(fn)} on the consumer's thread,
   * {@code Multicast} for several consumers, {@code FeedingProvider} to batch the results again.
   * Every pass starts from sample 0.
   */
  default Reader<Sample> reader() {
    return () -> PipelineIterator.of(samples().iterator());
  }

  /** The samples in source order, one at a time: a plain {@link Iterable} a reader pipeline can consume. */
  default Iterable<Sample> samples() {
    return () -> new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < numSamples();
      }

      @Override
      public Sample next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return sample(next++);
      }
    };
  }
}
