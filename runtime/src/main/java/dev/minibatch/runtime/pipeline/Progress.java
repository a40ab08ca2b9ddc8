package dev.minibatch.runtime.pipeline;

import java.io.PrintStream;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A console progress bar for a pass of known length, drawn by {@code me.tongfei:progressbar} (an
 * optional dependency: add it to use this class). The bar's message names the pipeline's current
 * bottleneck, refreshed about once a second.
 */
public final class Progress {
  private static final long REFRESH_NANOS = 1_000_000_000L;

  private Progress() {}

  /**
   * Tracks any iterator on standard error — a provider's epoch ({@code provider.iterator()}) shows
   * the engine's stats; {@code total} items expected, or 0 when unknown (the bar then counts
   * without a percentage). Closing the result closes {@code it} if it is {@link AutoCloseable}.
   */
  public static <T> PipelineIterator<T> track(Iterator<? extends T> it, String task, long total) {
    return track(PipelineIterator.<T>of(it), task, total, System.err);
  }

  /** Tracks {@code it} on standard error: {@code total} items expected (0 when unknown). */
  public static <T> PipelineIterator<T> track(PipelineIterator<T> it, String task, long total) {
    return track(it, task, total, System.err);
  }

  /**
   * Tracks {@code it} on {@code out}. The bar closes (and prints its final state) when the pass ends
   * or is closed.
   *
   * @throws IllegalStateException if {@code me.tongfei:progressbar} is not on the class path
   */
  public static <T> PipelineIterator<T> track(PipelineIterator<T> it, String task, long total, PrintStream out) {
    try {
      return new Tracked<>(it, Bar.open(task, total, out));
    } catch (NoClassDefFoundError e) {
      throw new IllegalStateException("the progress display needs me.tongfei:progressbar on the class path", e);
    }
  }

  /** Keeps the progressbar types in one class, loaded only when a bar is used. */
  private static final class Bar {
    private final me.tongfei.progressbar.ProgressBar bar;

    private Bar(me.tongfei.progressbar.ProgressBar bar) {
      this.bar = bar;
    }

    static Bar open(String task, long total, PrintStream out) {
      return new Bar(new me.tongfei.progressbar.ProgressBarBuilder()
          .setTaskName(task)
          .setInitialMax(total > 0 ? total : -1)
          .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(out))
          .build());
    }

    void step() {
      bar.step();
    }

    void message(String m) {
      bar.setExtraMessage(m);
    }

    void close() {
      bar.close();
    }
  }

  private static final class Tracked<T> implements PipelineIterator<T> {
    private final PipelineIterator<T> in;
    private final Bar bar;
    private long nextRefresh = System.nanoTime() + REFRESH_NANOS;
    private boolean closed;

    Tracked(PipelineIterator<T> in, Bar bar) {
      this.in = in;
      this.bar = bar;
    }

    @Override
    public boolean hasNext() {
      if (closed) {
        return false;
      }
      boolean more = in.hasNext();
      if (!more) {
        close();
      }
      return more;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      T item = in.next();
      bar.step();
      long now = System.nanoTime();
      if (now >= nextRefresh) {
        nextRefresh = now + REFRESH_NANOS;
        String b = in.stats().bottleneck();
        if (!b.isEmpty()) {
          bar.message("bottleneck: " + b);
        }
      }
      return item;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        in.close();
      } finally {
        bar.close();
      }
    }

    @Override
    public PipelineStats stats() {
      return in.stats();
    }
  }
}
