package dev.minibatch.runtime;

import java.util.Iterator;

/**
 * The iterator over one epoch of a {@link BatchProvider}. Closing it early stops whatever it
 * started (prefetching threads, open files); closing an exhausted iterator does nothing.
 *
 * @param <B> the batch type
 */
public interface BatchIterator<B extends Batch> extends Iterator<B>, AutoCloseable {
  /** Stops this epoch early and releases what it holds. Idempotent. */
  @Override
  void close();
}
