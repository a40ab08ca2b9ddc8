package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import java.util.List;

/** {@link Readers#chain}: the readers one after another; each is opened when reached. */
final class ChainedReader<T> implements Reader<T> {
  private final List<Reader<? extends T>> readers;

  ChainedReader(List<Reader<? extends T>> readers) {
    this.readers = List.copyOf(readers);
  }

  @Override
  public PipelineIterator<T> iterator() {
    return over(-1);
  }

  @Override
  public PipelineIterator<T> iterator(int pass) {
    return over(pass);
  }

  /** Every reader's pass {@code pass} in turn, or their next pass for -1. */
  private PipelineIterator<T> over(int pass) {
    return new PipelineIterator<T>() {
      private int next;
      private PipelineIterator<? extends T> current = PipelineIterator.empty();

      @Override
      public boolean hasNext() {
        while (!current.hasNext()) {
          current.close();
          if (next == readers.size()) {
            return false;
          }
          Reader<? extends T> r = readers.get(next++);
          current = pass < 0 ? r.iterator() : r.iterator(pass);
        }
        return true;
      }

      @Override
      public T next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        return current.next();
      }

      @Override
      public void close() {
        next = readers.size();
        current.close();
      }

      @Override
      public PipelineStats stats() {
        return current.stats();
      }
    };
  }
}
