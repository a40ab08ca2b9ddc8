package dev.minibatch.runtime.engine;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.internal.pipeline.HandOff;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One stream read by several consumers (Data Provider Core's Watcher): each consumer sees every
 * item exactly once, in order. An item stays valid for a consumer until that consumer moves on
 * ({@code hasNext()} after it) or closes; the source is asked for a new item only while fewer than
 * {@code window} items are held by some consumer, so with the default window of 1 a source that
 * reuses one buffer (a {@link dev.minibatch.runtime.BatchProvider}) is never overwritten while any
 * consumer reads it. {@code onRelease} is told when every consumer has released an item, so a
 * source with a pool of buffers can reuse that one.
 *
 * <p>Pace: the slowest consumer sets it — a consumer can run at most {@code window} items ahead of
 * the slowest. A consumer that closes (or is dropped and collected) releases what it holds and no
 * longer counts, so it never stalls the others; one dropped without {@code close()} is released once the
 * garbage collector finds it, which a consumer stalled on it asks for. The source is pulled on the consumers' threads, by
 * whichever needs the next item first; there are no threads of its own. The source is closed when
 * every consumer has closed (or reached the end).
 *
 * @param <T> the item type
 */
public final class Multicast<T> implements AutoCloseable {
  private final State<T> state;
  /**
   * Per consumer: its {@link ConsumerEnd} until it is handed out, then a weak reference to it, so a
   * consumer its user dropped without closing can be collected and released (see {@link
   * State#advance}).
   */
  private final Object[] ends;

  private Multicast(PipelineIterator<? extends T> source, int count, int window, Consumer<? super T> onRelease) {
    this.state = new State<>(source, count, window, onRelease);
    this.ends = new Object[count];
    for (int i = 0; i < count; i++) {
      ends[i] = new ConsumerEnd<>(state, i);
    }
  }

  /** {@code consumers} readers of {@code source}, with a window of 1 and no release callback. */
  public static <T> Multicast<T> of(Iterator<? extends T> source, int consumers) {
    return Multicast.<T>builder().consumers(consumers).build(source);
  }

  /** A builder: 2 consumers, a window of 1, no release callback. */
  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  /** The consumers' iterators, one per consumer; each may be used from its own thread. */
  public List<PipelineIterator<T>> consumers() {
    List<PipelineIterator<T>> list = new ArrayList<>(ends.length);
    for (int i = 0; i < ends.length; i++) {
      list.add(consumer(i));
    }
    return Collections.unmodifiableList(list);
  }

  /**
   * Consumer {@code i}'s iterator. The multicast keeps only a weak reference to it once handed out:
   * a consumer dropped by its user without {@code close()} is released once collected, so it never
   * stalls the others (asking for it again then gives an iterator at its end).
   */
  @SuppressWarnings("unchecked")
  public synchronized PipelineIterator<T> consumer(int i) {
    Object o = ends[i];
    if (o instanceof ConsumerEnd) {
      ends[i] = new WeakReference<>(o);
      return (ConsumerEnd<T>) o;
    }
    ConsumerEnd<T> e = ((WeakReference<ConsumerEnd<T>>) o).get();
    return e != null ? e : PipelineIterator.empty();
  }

  /** Closes every consumer (and so the source). */
  @Override
  public synchronized void close() {
    for (int i = 0; i < ends.length; i++) {
      Object o = ends[i];
      @SuppressWarnings("unchecked")
      ConsumerEnd<T> e = o instanceof ConsumerEnd ? (ConsumerEnd<T>) o : ((WeakReference<ConsumerEnd<T>>) o).get();
      if (e != null) {
        e.close();
      } else {
        state.leave(i);
      }
    }
  }

  /** Settings of a {@link Multicast}. */
  public static final class Builder<T> {
    private int consumers = 2;
    private int window = 1;
    private Consumer<? super T> onRelease = item -> {};

    private Builder() {}

    /** The number of consumers, at least 1. */
    public Builder<T> consumers(int consumers) {
      this.consumers = Check.atLeast("consumers", consumers, 1);
      return this;
    }

    /**
     * How many items may be held at once (pulled and not yet released by every consumer), at least
     * 1; the number of buffers the source can rotate through.
     */
    public Builder<T> window(int window) {
      this.window = Check.atLeast("the window", window, 1);
      return this;
    }

    /**
     * Called when every consumer has released an item, before the source is asked for the item that
     * will reuse its slot. It runs on some consumer's thread, under the multicast's lock: keep it
     * short and do not call back into the multicast.
     */
    public Builder<T> onRelease(Consumer<? super T> onRelease) {
      this.onRelease = onRelease;
      return this;
    }

    /** The multicast of {@code source}; it takes ownership of the source. */
    public Multicast<T> build(Iterator<? extends T> source) {
      return new Multicast<>(PipelineIterator.of(source), consumers, window, onRelease);
    }
  }

  /**
   * Shared by the consumers; changed only inside calls of {@link #handOff}, which does the waiting.
   * The source is the hand-off's one producer, pulled by whichever consumer needs the next item.
   */
  private static final class State<T> {
    /** How long a consumer waits on a full window before asking for a collection (see {@link #advance}). */
    static final long FIRST_NUDGE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final long MAX_NUDGE_NANOS = TimeUnit.SECONDS.toNanos(60);

    final PipelineIterator<? extends T> source;
    final Consumer<? super T> onRelease;
    final StageCounters counters;
    final HandOff handOff;
    final Object[] ring;
    final int[] pending;
    /** Per consumer: the sequence number of the next item it will read. */
    final long[] next;
    /** Per consumer: items before this are released by it. */
    final long[] releasedUpTo;
    final boolean[] active;
    int activeCount;
    long oldest;
    long produced;
    boolean pulling;
    /** The source has no more items, or failed: nobody pulls again. */
    boolean ended;
    boolean pulledMore;
    @Nullable T pulledItem;
    @Nullable Throwable pulledError;
    boolean sourceClosed;
    final Stall[] stalls;

    State(PipelineIterator<? extends T> source, int count, int window, Consumer<? super T> onRelease) {
      this.source = source;
      this.onRelease = onRelease;
      this.ring = new Object[window];
      this.pending = new int[window];
      this.next = new long[count];
      this.releasedUpTo = new long[count];
      this.active = new boolean[count];
      java.util.Arrays.fill(active, true);
      this.activeCount = count;
      this.stalls = new Stall[count];
      for (int i = 0; i < count; i++) {
        stalls[i] = new Stall();
      }
      this.counters = new StageCounters("multicast", 0, window, () -> (int) (produced - oldest));
      // Items pulled before a failure are still delivered: every consumer sees the same prefix.
      this.handOff = new HandOff(counters, 1, HandOff.OnFailure.AFTER_READY, count);
    }

    /**
     * Releases items up to {@code upTo} for consumer {@code c}; items every consumer has released are
     * handed to {@code onRelease} before their slot counts as free, so the source is never asked for
     * a new item before it got the old buffer back. True if a slot was freed. Under the lock.
     */
    boolean release(int c, long upTo) {
      for (long s = releasedUpTo[c]; s < upTo; s++) {
        pending[(int) (s % ring.length)]--;
      }
      releasedUpTo[c] = Math.max(releasedUpTo[c], upTo);
      boolean freed = false;
      while (oldest < produced && pending[(int) (oldest % ring.length)] <= 0) {
        int slot = (int) (oldest % ring.length);
        @SuppressWarnings("unchecked")
        T item = (T) ring[slot];
        ring[slot] = null;
        onRelease.accept(item);
        oldest++;
        freed = true;
      }
      return freed;
    }

    /** Closes the source once, outside the lock. */
    void closeSource() {
      boolean close = handOff.locked(() -> {
        boolean first = !sourceClosed;
        sourceClosed = true;
        return first;
      });
      if (close) {
        counters.ended();
        source.close();
      }
    }

    /**
     * Consumer {@code c} moves on: releases what it read, and makes item {@code next[c]} available;
     * false at the end.
     */
    boolean advance(int c) {
      // Consumers stalled on a full window wait for this release.
      handOff.offer(() -> release(c, next[c]));
      Stall stall = stalls[c];
      stall.reset();
      return handOff.take(() -> {
        while (true) {
          if (next[c] < produced) {
            return Boolean.TRUE;
          }
          if (!pulling && !ended && produced - oldest < ring.length) {
            if (!pull()) {
              return null;
            }
            continue;
          }
          if (produced - oldest >= ring.length) {
            stall.onFullWindow();
          }
          return null;
        }
      }, next[c], FIRST_NUDGE_NANOS) != null;
    }

    /**
     * Pulls one item from the source, outside the lock so other consumers keep reading; false if the
     * source ended or failed (the hand-off then knows). Under the lock.
     */
    private boolean pull() {
      pulling = true;
      long start = System.nanoTime();
      // The pulled* fields belong to the one consumer pulling (see pulling) until it clears the flag.
      handOff.unlocked(() -> {
        try {
          pulledMore = source.hasNext();
          pulledItem = pulledMore ? source.next() : null;
        } catch (Throwable t) {
          pulledError = t;
        }
      });
      pulling = false;
      counters.addBusy(System.nanoTime() - start);
      Throwable error = pulledError;
      T item = pulledItem;
      pulledError = null;
      pulledItem = null;
      if (error != null) {
        ended = true;
        handOff.fail(StageFailedException.of("multicast source", produced, error));
        return false;
      }
      if (!pulledMore) {
        ended = true;
        handOff.finish();
        return false;
      }
      int slot = (int) (produced % ring.length);
      ring[slot] = item;
      pending[slot] = activeCount;
      for (int i = 0; i < active.length; i++) {
        if (!active[i]) {
          // Closed consumers never read it: count them as having released it.
          releasedUpTo[i] = produced + 1;
          next[i] = produced + 1;
        }
      }
      produced++;
      counters.addItems(1);
      // Other consumers waiting for this item (or for the pull to end) go on.
      wakeConsumers();
      return true;
    }

    /** Wakes the consumers waiting in {@link #advance}. */
    private void wakeConsumers() {
      handOff.offer(() -> true);
    }

    @SuppressWarnings("unchecked")
    T item(int c) {
      return handOff.locked(() -> (T) ring[(int) (next[c]++ % ring.length)]);
    }

    /** Consumer {@code c} leaves; the last one closes the source. */
    void leave(int c) {
      boolean last = handOff.locked(() -> {
        if (!active[c]) {
          return false;
        }
        active[c] = false;
        activeCount--;
        release(c, produced);
        next[c] = produced;
        wakeConsumers();
        return activeCount == 0;
      });
      // Only when nobody reads any more: the last item may live in a buffer the source owns.
      if (last) {
        closeSource();
      }
    }
  }

  /**
   * A consumer stalled on a full window: a lagging consumer may have been dropped without close().
   * The cleaner releases it once it is collected, so ask for a collection — rarely: the interval
   * doubles while the stall lasts (a slow but live consumer is not affected).
   */
  private static final class Stall {
    private long since;
    private long nudge;

    void reset() {
      since = 0;
      nudge = State.FIRST_NUDGE_NANOS;
    }

    void onFullWindow() {
      long now = System.nanoTime();
      if (since == 0) {
        since = now;
      } else if (now - since >= nudge) {
        System.gc();
        since = now;
        nudge = Math.min(nudge * 2, State.MAX_NUDGE_NANOS);
      }
    }
  }

  /** One consumer's iterator; the {@link ThreadCleaner} releases a dropped one. */
  private static final class ConsumerEnd<T> implements PipelineIterator<T> {
    private final State<T> state;
    private final int index;
    private final Cleaner.Cleanable cleanable;
    private boolean ready;
    private boolean done;

    ConsumerEnd(State<T> state, int index) {
      this.state = state;
      this.index = index;
      this.cleanable = ThreadCleaner.register(this, new Leave<>(state, index));
    }

    @Override
    public boolean hasNext() {
      if (ready) {
        return true;
      }
      if (done) {
        return false;
      }
      boolean more;
      try {
        more = state.advance(index);
      } catch (RuntimeException e) {
        close();
        throw e;
      }
      if (!more) {
        close();
        return false;
      }
      ready = true;
      return true;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      ready = false;
      return state.item(index);
    }

    @Override
    public void close() {
      done = true;
      ready = false;
      cleanable.clean();
    }

    @Override
    public PipelineStats stats() {
      return state.source.stats().plus(state.counters.snapshot());
    }
  }

  private record Leave<T>(State<T> state, int index) implements Runnable {
    @Override
    public void run() {
      state.leave(index);
    }
  }
}
