package dev.minibatch.runtime.io;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.ArrayDataProvider;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.Sampling;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The base of the file providers: the file's samples are loaded once into arrays whose axis 0 is
 * the sample axis, and an {@link ArrayDataProvider} serves them, so every shared semantic — last
 * batch policies, shuffle and seed, sharding, resumable state, reused batch buffers — is the one
 * implementation. {@link #samples()} offers the same data one sample at a time.
 */
public abstract class FileProvider implements BatchProvider<NamedBatch>, Resumable {
  private final ArrayDataProvider arrays;
  private final List<String> names = new ArrayList<>();
  private final List<INDArray> sources = new ArrayList<>();

  /**
   * A provider over {@code data} and {@code labels} (name → array, in order) with {@code sampling}.
   *
   * @throws IllegalArgumentException as {@link ArrayDataProvider.Builder#build()}
   */
  protected FileProvider(Sampling sampling, java.util.Map<String, INDArray> data, java.util.Map<String, INDArray> labels) {
    ArrayDataProvider.Builder b = ArrayDataProvider.builder()
        .batchSize(sampling.batchSize())
        .lastBatch(sampling.lastBatch())
        .shuffle(sampling.shuffle())
        .shard(sampling.numParts(), sampling.partIndex())
        .evenShards(sampling.evenShards())
        .dataPadding(sampling.dataPadding())
        .labelPadding(sampling.labelPadding());
    Long seed = sampling.seed();
    if (seed != null) {
      b.seed(seed);
    }
    sampling.padding().forEach(b::padding);
    data.forEach((k, v) -> {
      b.data(k, v);
      names.add(k);
      sources.add(v);
    });
    labels.forEach((k, v) -> {
      b.label(k, v);
      names.add(k);
      sources.add(v);
    });
    this.arrays = b.build();
  }

  @Override
  public int batchSize() {
    return arrays.batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return arrays.provideData();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return arrays.provideLabel();
  }

  @Override
  public BatchIterator<NamedBatch> iterator() {
    return arrays.iterator();
  }

  @Override
  public IterationState saveState() {
    return arrays.saveState();
  }

  @Override
  public void restoreState(IterationState state) {
    arrays.restoreState(state);
  }

  @Override
  public void close() {
    arrays.close();
  }

  /** The number of samples in the file(s), all parts. */
  public int numSamples() {
    return arrays.numSamples();
  }

  /** The shuffle seed in use. */
  public long seed() {
    return arrays.seed();
  }

  /** The provider that serves the loaded arrays. */
  protected ArrayDataProvider arrays() {
    return arrays;
  }

  /** Sample {@code i} of the source (ignoring shuffle and shard): views of each array's row {@code i}. */
  public Sample sample(int i) {
    if (i < 0 || i >= numSamples()) {
      throw new IndexOutOfBoundsException("sample " + i + " of " + numSamples());
    }
    List<INDArray> rows = new ArrayList<>(sources.size());
    for (INDArray s : sources) {
      rows.add(s.slice(i, 0));
    }
    return new Sample(i, names, rows);
  }

  /**
   * The samples in source order, one at a time: a plain {@link Iterable} that a reader pipeline can
   * consume. It ignores shuffle, shard and last-batch settings, which belong to batching.
   */
  public Iterable<Sample> samples() {
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
