package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.lang.ref.Cleaner;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * The consumer's end of a threaded stage: takes a whole chunk of items per hand-off and serves them
 * one by one. At the end it joins the stage's threads before reporting the end, so they finish
 * closing their sources undisturbed. Subclasses say how a chunk is taken and what the stage's stats
 * are.
 *
 * @param <T> the item type
 */
abstract class ChunkedStage<T> implements PipelineIterator<T> {
  private final Workers workers;
  private final Cleaner.Cleanable cleanable;
  private @Nullable Object[] local = new Object[0];
  private int position;
  private int size;
  private boolean done;

  /**
   * @param shutdown stops the stage; must not reference this object, so a dropped iterator becomes
   *     unreachable and the cleaner runs it
   */
  ChunkedStage(Workers workers, Runnable shutdown) {
    this.workers = workers;
    this.cleanable = ThreadCleaner.register(this, shutdown);
  }

  /**
   * Blocks for the next chunk and hands it to {@link #serve}; returns false at the end of the
   * stream. Throws the stage's failure.
   */
  abstract boolean takeChunk();

  /** Makes {@code items[0, count)} the items served next. */
  final void serve(@Nullable Object[] items, int count) {
    local = items;
    position = 0;
    size = count;
  }

  @Override
  public final boolean hasNext() {
    if (position < size) {
      return true;
    }
    if (done) {
      return false;
    }
    boolean more;
    try {
      more = takeChunk();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    if (!more) {
      workers.join();
      close();
      return false;
    }
    return true;
  }

  @Override
  public final T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    @SuppressWarnings("unchecked")
    T item = (T) local[position];
    local[position++] = null;
    return item;
  }

  @Override
  public final void close() {
    done = true;
    position = size = 0;
    cleanable.clean();
  }
}
