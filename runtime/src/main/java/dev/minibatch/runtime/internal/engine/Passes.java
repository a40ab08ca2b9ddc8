package dev.minibatch.runtime.internal.engine;

import java.util.Iterator;

/**
 * A streaming source, as the engine reads it: one pass per epoch ({@link
 * BatchEngine#streaming}).
 *
 * @param <S> the sample type
 */
@FunctionalInterface
public interface Passes<S> {
  /**
   * The samples of epoch {@code epoch}, from its start: the same samples in the same order each
   * time the same epoch is opened, for resume to replay it. An iterator that is {@link
   * AutoCloseable} is closed when its pass ends, is closed, superseded, or dropped.
   */
  Iterator<? extends S> open(int epoch);
}
