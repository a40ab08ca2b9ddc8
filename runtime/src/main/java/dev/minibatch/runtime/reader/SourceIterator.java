package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.internal.pipeline.CloseAll;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Base of the sequential iterators: one look-ahead item, the upstream iterators to close and to
 * ask for stats. Subclasses implement {@link #advance()}.
 */
abstract class SourceIterator<T> implements PipelineIterator<T> {
  /** Returned by {@link #advance()} at the end of the pass. */
  static final Object END = new Object();
  private static final Object NONE = new Object();

  private final List<? extends PipelineIterator<?>> upstream;
  private Object lookahead = NONE;
  private boolean ended;
  private boolean closed;

  SourceIterator(List<? extends PipelineIterator<?>> upstream) {
    this.upstream = upstream;
  }

  SourceIterator(PipelineIterator<?> upstream) {
    this(List.of(upstream));
  }

  /** The next item, or {@link #END}. */
  abstract Object advance();

  @Override
  public final boolean hasNext() {
    if (lookahead != NONE) {
      return true;
    }
    if (ended) {
      return false;
    }
    Object n;
    try {
      n = advance();
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
    if (n == END) {
      ended = true;
      close();
      return false;
    }
    lookahead = n;
    return true;
  }

  @Override
  public final T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    @SuppressWarnings("unchecked")
    T t = (T) lookahead;
    lookahead = NONE;
    return t;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    ended = true;
    lookahead = NONE;
    CloseAll.closeAll(upstream, PipelineIterator::close);
  }

  @Override
  public PipelineStats stats() {
    PipelineStats s = PipelineStats.EMPTY;
    for (PipelineIterator<?> it : upstream) {
      s = s.plus(it.stats());
    }
    return s;
  }
}
