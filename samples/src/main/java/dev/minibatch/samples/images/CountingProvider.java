package dev.minibatch.samples.images;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import java.util.List;
import java.util.function.Consumer;

/**
 * A view of a provider that hands every batch to {@code seen} as the iterator returns it, so a
 * training loop can count what it was actually fed. Closing the view leaves the provider open.
 */
final class CountingProvider<B extends Batch> implements BatchProvider<B> {
  private final BatchProvider<B> inner;
  private final Consumer<? super B> seen;

  CountingProvider(BatchProvider<B> inner, Consumer<? super B> seen) {
    this.inner = inner;
    this.seen = seen;
  }

  @Override
  public int batchSize() {
    return inner.batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return inner.provideData();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return inner.provideLabel();
  }

  @Override
  public BatchIterator<B> iterator() {
    BatchIterator<B> it = inner.iterator();
    return new BatchIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public B next() {
        B b = it.next();
        seen.accept(b);
        return b;
      }

      @Override
      public void close() {
        it.close();
      }
    };
  }

  @Override
  public void close() {}
}
