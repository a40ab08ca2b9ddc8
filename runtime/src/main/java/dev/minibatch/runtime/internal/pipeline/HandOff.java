package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one place where the runtime's threads wait for each other. A stage keeps its shared state
 * (a queue, a reorder map, ring counters) and changes it only inside this hand-off's calls, which
 * run under one lock; the hand-off does the rest the same way for every stage:
 *
 * <ul>
 *   <li><b>Blocking after an adaptive spin.</b> {@link #put} waits until the producer's step can
 *       proceed (room is free), {@link #take} until the consumer's step can (an item is there). A
 *       step that succeeds wakes the other side. Before a thread parks it spins, without the lock,
 *       until the other side changes the state or its side's spin budget runs out. The budget
 *       follows that side's recent waits: one and a half times the last wait when it was short (at
 *       most {@link #MAX_SPIN_NANOS}), else {@link #MIN_SPIN_NANOS}. When both sides take about
 *       as long per item (a prefetched epoch) the other side is usually that close, and waking a
 *       parked thread costs tens of microseconds per item on a virtual machine; a side that waits
 *       long (a producer far ahead of a slow consumer) spins only briefly. Only a hand-off
 *       between one producer and one consumer spins: with more threads than that (reader threads,
 *       parallel workers) a spinning thread could hold a core that another of them needs, so
 *       they park at once (measured: two readers and a consumer lost 4 % to spinning on two
 *       cores). Nobody polls beyond that.
 *   <li><b>First failure wins.</b> {@link #fail} keeps the first failure; producers stop at their
 *       next call and the consumer gets a copy thrown on its own thread ({@link
 *       StageFailedException#rethrownHere()}).
 *   <li><b>Close wakes everyone.</b> After {@link #close} producers' calls return null (they stop),
 *       the consumer's return null (the end).
 *   <li><b>End after N producers.</b> Once every producer called {@link #finish} and the
 *       consumer's step finds nothing, {@link #take} returns null.
 *   <li><b>Wait accounting.</b> Time a producer spent blocked goes to the stage's blocked-output
 *       counter, time the consumer spent waiting to its consumer-wait counter, in nanoseconds,
 *       counted only when a thread really waited.
 * </ul>
 *
 * <p>A step runs under the lock: it must be short and must not block (a slow pull from a source
 * goes through {@link #unlocked}). Public because the batching engine's reader threads hand off
 * through it too.
 */
public final class HandOff {
  /** A step run under the lock: its result once it could act, or null to wait for a change. */
  @FunctionalInterface
  public interface Step<R> {
    /** Acts on the shared state if it can; null to wait. */
    @Nullable R attempt();
  }

  /** When the consumer sees a failure. */
  public enum OnFailure {
    /** At its next call, before items still queued (they are dropped). */
    AT_ONCE,
    /** After the items that are ready to it now: every consumer sees the same prefix. */
    AFTER_READY
  }

  /** The shortest spin before parking: a wake-up through the scheduler costs about this much here. */
  static final long MIN_SPIN_NANOS = 20_000;
  /** The longest spin: short against any batch worth prefetching. */
  static final long MAX_SPIN_NANOS = 500_000;

  private final ReentrantLock lock = new ReentrantLock();
  /** Bumped whenever the consumer side is signalled: a spinning consumer watches it. */
  private volatile int consumerSignals;
  /** Bumped whenever the producer side is signalled: a spinning producer watches it. */
  private volatile int producerSignals;
  // The sides' spin budgets, read and set under the lock.
  private long consumerSpin = MIN_SPIN_NANOS;
  private long producerSpin = MIN_SPIN_NANOS;
  /** The consumer side waits here: for an item, the end, a failure or a close. */
  private final Condition consumers = lock.newCondition();
  /** The producer side waits here: for room, a failure or a close. */
  private final Condition producers = lock.newCondition();
  private final StageCounters counters;
  private final OnFailure onFailure;
  private int producersLeft;
  /** Whether waits spin first: only between one producer and one consumer. */
  private final boolean spins;
  private volatile @Nullable StageFailedException failure;
  private volatile boolean closed;

  /**
   * A hand-off of the stage counted by {@code counters}.
   *
   * @param producers how many producers must {@link #finish} before the consumer sees the end
   * @param consumers how many threads take from it (waits spin only for one producer and one
   *     consumer)
   */
  public HandOff(StageCounters counters, int producers, OnFailure onFailure, int consumers) {
    this.counters = counters;
    this.producersLeft = producers;
    this.spins = producers == 1 && consumers == 1;
    this.onFailure = onFailure;
  }

  /** A hand-off to one consumer thread, which sees a failure at once. */
  public HandOff(StageCounters counters, int producers) {
    this(counters, producers, OnFailure.AT_ONCE, 1);
  }

  /**
   * A producer's blocking call: runs {@code step} until it gives a result, waiting for a change in
   * between; null once the hand-off is closed or failed (the producer should stop).
   *
   * @throws InterruptedException if the producer is interrupted while waiting (a stop)
   */
  public <R> @Nullable R put(Step<R> step) throws InterruptedException {
    return produce(step, true);
  }

  /**
   * As {@link #put}, but a successful step wakes nobody: for a producer whose step only takes work
   * (claims a batch to write) and that announces the result later with {@link #offer}.
   *
   * @throws InterruptedException if the producer is interrupted while waiting (a stop)
   */
  public <R> @Nullable R claim(Step<R> step) throws InterruptedException {
    return produce(step, false);
  }

  private <R> @Nullable R produce(Step<R> step, boolean wake) throws InterruptedException {
    lock.lock();
    long blockedSince = 0;
    try {
      while (true) {
        if (stopped()) {
          return null;
        }
        R r = step.attempt();
        if (r != null) {
          if (wake) {
            signalConsumers();
          }
          return r;
        }
        if (blockedSince == 0) {
          blockedSince = System.nanoTime();
          if (spinUnlocked(true)) {
            continue;
          }
        }
        producers.await();
      }
    } finally {
      long now = blockedSince == 0 ? 0 : System.nanoTime();
      long waited = now - blockedSince;
      if (blockedSince != 0) {
        producerSpin = nextSpin(waited);
      }
      lock.unlock();
      if (blockedSince != 0) {
        counters.addBlockedOutput(now, waited);
      }
    }
  }

  /**
   * The consumer's blocking call: runs {@code step} until it gives a result; null at the end (every
   * producer finished and the step found nothing) or once closed.
   *
   * @throws StageFailedException the first failure, or an interrupt while waiting (the interrupt
   *     status is kept)
   */
  public <R> @Nullable R take(Step<R> step) {
    return take(step, StageFailedException.NO_SAMPLE, 0);
  }

  /**
   * As {@link #take(Step)}, and also runs the step again after every {@code recheckNanos} of
   * waiting (0: only on a change), for a step that acts on a stall.
   *
   * @param waitingFor the sample the consumer waits for, named if it is interrupted
   */
  public <R> @Nullable R take(Step<R> step, long waitingFor, long recheckNanos) {
    try {
      return await(step, true, recheckNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StageFailedException(counters.name, waitingFor, e);
    }
  }

  /** As {@link #take(Step)}, but an interrupt does not end the wait (the status is kept). */
  public <R> @Nullable R takeUninterruptibly(Step<R> step) {
    try {
      return await(step, false, 0);
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible wait was interrupted", e);
    }
  }

  private <R> @Nullable R await(Step<R> step, boolean interruptible, long recheckNanos)
      throws InterruptedException {
    lock.lock();
    long waitingSince = 0;
    try {
      while (true) {
        if (onFailure == OnFailure.AT_ONCE) {
          throwFailure();
        }
        if (closed) {
          return null;
        }
        R r = step.attempt();
        if (r != null) {
          signalProducers();
          return r;
        }
        throwFailure();
        if (producersLeft <= 0) {
          return null;
        }
        if (waitingSince == 0) {
          waitingSince = System.nanoTime();
          if (spinUnlocked(false)) {
            continue;
          }
        }
        if (recheckNanos > 0) {
          consumers.await(recheckNanos, TimeUnit.NANOSECONDS);
        } else if (interruptible) {
          consumers.await();
        } else {
          consumers.awaitUninterruptibly();
        }
      }
    } finally {
      long now = waitingSince == 0 ? 0 : System.nanoTime();
      long waited = now - waitingSince;
      if (waitingSince != 0) {
        consumerSpin = nextSpin(waited);
      }
      lock.unlock();
      if (waitingSince != 0) {
        counters.addConsumerWait(now, waited);
      }
    }
  }

  /**
   * Changes the shared state without waiting and wakes the consumer side if {@code change} says a
   * waiting consumer may now proceed (an item arrived, a slot was written).
   */
  public void offer(BooleanSupplier change) {
    lock.lock();
    try {
      if (change.getAsBoolean()) {
        signalConsumers();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Changes the shared state without waiting and wakes the producer side (room was freed). */
  public void free(Runnable change) {
    lock.lock();
    try {
      change.run();
      signalProducers();
    } finally {
      lock.unlock();
    }
  }

  /** Reads or changes the shared state under the lock; wakes nobody. */
  public <R> R locked(Supplier<R> read) {
    lock.lock();
    try {
      return read.get();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code work} without the lock, from inside a step, and takes the lock back: a consumer that
   * produces on its own thread (a pull from a source) does not hold up the others meanwhile. The
   * step must re-read the shared state afterwards.
   */
  public void unlocked(Runnable work) {
    if (lock.getHoldCount() != 1) {
      throw new IllegalStateException("unlocked() must be called from a step, holding the lock once");
    }
    lock.unlock();
    try {
      work.run();
    } finally {
      lock.lock();
    }
  }

  /**
   * One producer has no more items; true for the last one. The consumer sees the end once it has
   * taken what they left.
   */
  public boolean finish() {
    lock.lock();
    try {
      producersLeft--;
      signalConsumers();
      return producersLeft == 0;
    } finally {
      lock.unlock();
    }
  }

  /** Records {@code e} unless a failure came first or the hand-off is closed; wakes everyone. */
  public void fail(StageFailedException e) {
    lock.lock();
    try {
      if (failure == null && !closed) {
        failure = e;
      }
      signalConsumers();
      signalProducers();
    } finally {
      lock.unlock();
    }
  }

  /** Closes the hand-off, wakes everyone. */
  public void close() {
    close(() -> {});
  }

  /** Closes the hand-off after {@code drop} let go of what is queued; wakes everyone. */
  public void close(Runnable drop) {
    lock.lock();
    try {
      closed = true;
      drop.run();
      signalConsumers();
      signalProducers();
    } finally {
      lock.unlock();
    }
  }

  /** True once closed (the consumer has gone). */
  public boolean isClosed() {
    return closed;
  }

  /** True once closed or failed: a producer should stop. */
  public boolean stopped() {
    return closed || failure != null;
  }

  private void signalConsumers() {
    consumerSignals++;
    consumers.signalAll();
  }

  private void signalProducers() {
    producerSignals++;
    producers.signalAll();
  }

  /** The spin budget after a wait of {@code waited} ns: enough to have caught it, if it was short. */
  static long nextSpin(long waited) {
    return waited > MAX_SPIN_NANOS ? MIN_SPIN_NANOS : Math.max(MIN_SPIN_NANOS, Math.min(MAX_SPIN_NANOS, waited + waited / 2));
  }

  /**
   * Lets go of the lock and spins until the other side signals this side or this side's budget
   * runs out, then takes the lock back; false (nothing done) where this hand-off does not spin or
   * unless the lock is held exactly once.
   * The caller re-runs its step either way: a signal during the spin is seen, one after it wakes
   * the park that follows under the lock.
   */
  private boolean spinUnlocked(boolean producer) {
    if (!spins || lock.getHoldCount() != 1) {
      return false;
    }
    int seen = producer ? producerSignals : consumerSignals;
    long end = System.nanoTime() + (producer ? producerSpin : consumerSpin);
    lock.unlock();
    try {
      while ((producer ? producerSignals : consumerSignals) == seen && !closed && System.nanoTime() < end) {
        Thread.onSpinWait();
      }
    } finally {
      lock.lock();
    }
    return true;
  }

  /** Throws a copy of the first failure on the caller's thread, if there is one. */
  public void throwFailure() {
    StageFailedException f = failure;
    if (f != null) {
      throw f.rethrownHere();
    }
  }
}
