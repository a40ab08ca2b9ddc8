package dev.minibatch.runtime.pipeline;

import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
      if (consumers < 1) {
        throw new IllegalArgumentException("a multicast needs at least 1 consumer, got " + consumers);
      }
      this.consumers = consumers;
      return this;
    }

    /**
     * How many items may be held at once (pulled and not yet released by every consumer), at least
     * 1; the number of buffers the source can rotate through.
     */
    public Builder<T> window(int window) {
      if (window < 1) {
        throw new IllegalArgumentException("the window must be >= 1, got " + window);
      }
      this.window = window;
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

  /** Shared by the consumers; guarded by {@link #lock}. */
  private static final class State<T> {
    /** How long a consumer waits on a full window before asking for a collection (see {@link #advance}). */
    static final long FIRST_NUDGE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final long MAX_NUDGE_NANOS = TimeUnit.SECONDS.toNanos(60);

    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final PipelineIterator<? extends T> source;
    final Consumer<? super T> onRelease;
    final StageCounters counters;
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
    boolean ended;
    boolean sourceClosed;
    @Nullable StageFailedException failure;

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
      this.counters = new StageCounters("multicast", 0, window, () -> (int) (produced - oldest));
    }

    /**
     * Releases items up to {@code upTo} for consumer {@code c}; items every consumer has released are
     * handed to {@code onRelease} before their slot counts as free, so the source is never asked for
     * a new item before it got the old buffer back. Under lock.
     */
    void release(int c, long upTo) {
      for (long s = releasedUpTo[c]; s < upTo; s++) {
        pending[(int) (s % ring.length)]--;
      }
      releasedUpTo[c] = Math.max(releasedUpTo[c], upTo);
      while (oldest < produced && pending[(int) (oldest % ring.length)] <= 0) {
        int slot = (int) (oldest % ring.length);
        @SuppressWarnings("unchecked")
        T item = (T) ring[slot];
        ring[slot] = null;
        onRelease.accept(item);
        oldest++;
        changed.signalAll();
      }
    }

    /** Closes the source once, outside the lock. */
    void closeSource() {
      boolean close;
      lock.lock();
      try {
        close = !sourceClosed;
        sourceClosed = true;
      } finally {
        lock.unlock();
      }
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
      lock.lock();
      long waitingSince = 0;
      long nudge = FIRST_NUDGE_NANOS;
      try {
        release(c, next[c]);
        while (true) {
          // Items pulled before a failure are still delivered: every consumer sees the same prefix.
          if (next[c] < produced) {
            return true;
          }
          if (failure != null) {
            throw failure.rethrownHere();
          }
          if (ended) {
            return false;
          }
          if (!pulling && produced - oldest < ring.length) {
            pull();
            continue;
          }
          if (waitingSince == 0) {
            waitingSince = System.nanoTime();
          }
          if (!changed.await(nudge, TimeUnit.NANOSECONDS) && produced - oldest >= ring.length) {
            // Stalled on a full window: a lagging consumer may have been dropped without close().
            // The cleaner releases it once it is collected, so ask for a collection — rarely: the
            // interval doubles while the stall lasts (a slow but live consumer is not affected).
            System.gc();
            nudge = Math.min(nudge * 2, MAX_NUDGE_NANOS);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StageFailedException("multicast", next[c], e);
      } finally {
        if (waitingSince != 0) {
          counters.consumerWait.add(System.nanoTime() - waitingSince);
        }
        lock.unlock();
      }
    }

    /** Pulls one item from the source, outside the lock so other consumers keep reading. Under lock. */
    private void pull() {
      pulling = true;
      lock.unlock();
      T item = null;
      boolean more;
      Throwable error = null;
      long start = System.nanoTime();
      try {
        more = source.hasNext();
        if (more) {
          item = source.next();
        }
      } catch (Throwable t) {
        more = false;
        error = t;
      } finally {
        lock.lock();
        pulling = false;
      }
      counters.busy.add(System.nanoTime() - start);
      if (error != null) {
        failure = StageFailedException.of("multicast source", produced, error);
      } else if (more) {
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
        counters.items.increment();
      } else {
        ended = true;
      }
      changed.signalAll();
    }

    @SuppressWarnings("unchecked")
    T item(int c) {
      lock.lock();
      try {
        return (T) ring[(int) (next[c]++ % ring.length)];
      } finally {
        lock.unlock();
      }
    }

    /** Consumer {@code c} leaves; the last one closes the source. */
    void leave(int c) {
      boolean last;
      lock.lock();
      try {
        if (!active[c]) {
          return;
        }
        active[c] = false;
        activeCount--;
        release(c, produced);
        next[c] = produced;
        last = activeCount == 0;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      // Only when nobody reads any more: the last item may live in a buffer the source owns.
      if (last) {
        closeSource();
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
