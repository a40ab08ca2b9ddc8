package dev.minibatch.runtime.pipeline;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An iterator over one pass of a pipeline. Closing it stops every thread it started and closes its
 * sources; closing an exhausted or closed iterator does nothing. An iterator that is dropped
 * without being closed (a {@code break} out of a for-each loop) is closed once the garbage
 * collector finds it unreachable; close it explicitly (try-with-resources, Kotlin's {@code use})
 * to stop its threads at once.
 *
 * @param <T> the item type
 */
public interface PipelineIterator<T> extends Iterator<T>, AutoCloseable {
  /** Stops this pass and releases what it holds. Idempotent. */
  @Override
  void close();

  /**
   * A snapshot of the counters of the threaded stages behind this iterator, source first. Empty for
   * a pipeline without threads.
   */
  default PipelineStats stats() {
    return PipelineStats.EMPTY;
  }

  /**
   * Adapts a plain iterator; closing the adapter closes {@code iterator} if it is {@link
   * AutoCloseable}.
   */
  static <T> PipelineIterator<T> of(Iterator<? extends T> iterator) {
    if (iterator instanceof PipelineIterator) {
      @SuppressWarnings("unchecked")
      PipelineIterator<T> same = (PipelineIterator<T>) iterator;
      return same;
    }
    return new PipelineIterator<T>() {
      @Override
      public boolean hasNext() {
        return iterator.hasNext();
      }

      @Override
      public T next() {
        return iterator.next();
      }

      @Override
      public void close() {
        if (iterator instanceof AutoCloseable) {
          try {
            ((AutoCloseable) iterator).close();
          } catch (RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new IllegalStateException("closing " + iterator + " failed", e);
          }
        }
      }
    };
  }

  /** An iterator without items. */
  static <T> PipelineIterator<T> empty() {
    return new PipelineIterator<T>() {
      @Override
      public boolean hasNext() {
        return false;
      }

      @Override
      public T next() {
        throw new NoSuchElementException();
      }

      @Override
      public void close() {}
    };
  }
}
