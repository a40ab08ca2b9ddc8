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
          current = readers.get(next++).iterator();
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
