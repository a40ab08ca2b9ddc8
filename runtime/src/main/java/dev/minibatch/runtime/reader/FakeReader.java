package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * {@link Readers#fake}: the source's first sample, read once (at the first pass) and repeated
 * {@code n} times per pass — for measuring a model's speed without the cost of loading.
 */
final class FakeReader<T> implements Reader<T> {
  private final Reader<T> source;
  private final long n;
  private volatile @Nullable T sample;

  FakeReader(Reader<T> source, long n) {
    this.source = source;
    this.n = Check.atLeast("fake reader length", n, 0);
  }

  private T sample() {
    T s = sample;
    if (s == null) {
      try (PipelineIterator<T> it = source.iterator()) {
        if (!it.hasNext()) {
          throw new NoSuchElementException("fake reader: the source has no sample to repeat");
        }
        s = it.next();
      }
      sample = s;
    }
    return s;
  }

  @Override
  public PipelineIterator<T> iterator() {
    return new PipelineIterator<T>() {
      private long emitted;

      @Override
      public boolean hasNext() {
        return emitted < n;
      }

      @Override
      public T next() {
        if (emitted >= n) {
          throw new NoSuchElementException();
        }
        T s = sample();
        emitted++;
        return s;
      }

      @Override
      public void close() {
        emitted = n;
      }
    };
  }
}
