package dev.minibatch.samples;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import java.util.List;

/**
 * A view of a provider that counts the real samples of every batch it hands out ({@link
 * Batch#countSamples()}: the batch's rows minus its padding), so a trainer reports what it was fed
 * rather than what a formula predicts. Closing the view leaves the provider open: its owner closes it.
 *
 * @param <B> the batch type
 */
public final class CountingProvider<B extends Batch> implements BatchProvider<B> {
  private final BatchProvider<B> provider;
  private long samples;

  public CountingProvider(BatchProvider<B> provider) {
    this.provider = provider;
  }

  /** The real samples handed out since the last call, and starts counting again from zero. */
  public long takeSamples() {
    long n = samples;
    samples = 0;
    return n;
  }

  @Override
  public int batchSize() {
    return provider.batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return provider.provideData();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return provider.provideLabel();
  }

  @Override
  public BatchIterator<B> iterator() {
    BatchIterator<B> epoch = provider.iterator();
    return new BatchIterator<>() {
      @Override
      public boolean hasNext() {
        return epoch.hasNext();
      }

      @Override
      public B next() {
        B batch = epoch.next();
        samples += batch.countSamples();
        return batch;
      }

      @Override
      public void close() {
        epoch.close();
      }
    };
  }

  /** Does nothing: the counted provider belongs to the caller. */
  @Override
  public void close() {}
}
