package dev.minibatch.runtime.internal.engine;

import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The one current-iteration and close guard of a provider: which iteration is current, which
 * thread runs it, and how to stop it.
 *
 * <ul>
 *   <li>A new iteration on the thread of the current one supersedes it (a {@code break} out of a
 *       for-each loop, then the next epoch): the old one's threads are stopped before the new one
 *       starts, and its next call throws {@link IllegalStateException}.
 *   <li>A new iteration on another thread while the current one is unfinished, and its thread
 *       alive, throws {@link IllegalStateException}: two threads never fill one provider's buffers,
 *       so a delivered batch never holds rows of another iteration.
 *   <li>{@link #close()} stops the current iteration's threads; later calls throw.
 * </ul>
 *
 * <p>Batches are written under {@link #lockWriting(long)}, which also checks that the iteration is
 * still current, so a restore, reset or close from another thread never races a write and never
 * frees buffers under it.
 */
public final class IterationGuard {
  private final String provider;
  private final ReentrantLock writing = new ReentrantLock();
  private long generation;
  private int epoch = -1;
  private @Nullable Thread owner;
  private boolean active;
  private @Nullable Runnable stopper;
  private boolean closed;

  private final VerdictMonitor verdict;

  public IterationGuard(String provider) {
    this.provider = provider;
    this.verdict = new VerdictMonitor(provider);
  }

  /** The provider's live verdict, which its iterations feed. */
  VerdictMonitor verdict() {
    return verdict;
  }

  /** The provider's name, for messages and stats. */
  public String provider() {
    return provider;
  }

  /**
   * Starts an iteration on the calling thread and returns its ticket; stops the superseded one
   * first.
   *
   * @throws IllegalStateException if the provider is closed, or another live thread's iteration is
   *     unfinished
   */
  public long begin() {
    Runnable stopPrevious;
    long ticket;
    synchronized (this) {
      checkOpen();
      Thread me = Thread.currentThread();
      Thread o = owner;
      if (active && o != null && o != me && o.isAlive()) {
        throw new IllegalStateException(provider + " is being iterated on thread '" + o.getName() + "' (epoch " + epoch
            + ", not finished), so thread '" + me.getName() + "' cannot start another iteration: one provider serves one "
            + "iteration at a time. Finish or close that iteration first (try-with-resources on iterator()), or give "
            + "each thread its own provider");
      }
      stopPrevious = stopper;
      stopper = null;
      ticket = ++generation;
      owner = me;
      active = true;
      epoch = -1;
    }
    if (stopPrevious != null) {
      stopPrevious.run();
    }
    return ticket;
  }

  /** Records the epoch of iteration {@code ticket} for messages. */
  public synchronized void epoch(long ticket, int epoch) {
    if (ticket == generation) {
      this.epoch = epoch;
    }
  }

  /**
   * What stops iteration {@code ticket}'s threads and sources; run when it is superseded or the
   * provider is closed. Runs at once if the iteration is no longer current.
   */
  public void onStop(long ticket, Runnable stop) {
    synchronized (this) {
      if (ticket == generation && active) {
        stopper = stop;
        return;
      }
    }
    stop.run();
  }

  /**
   * Throws unless iteration {@code ticket} is current.
   *
   * @throws IllegalStateException naming why: closed, or superseded
   */
  public synchronized void check(long ticket) {
    checkOpen();
    if (ticket != generation) {
      throw new IllegalStateException("this iteration of " + provider + " is no longer current: the provider started "
          + "another iteration, was restored, reset or closed since. One provider serves one iteration at a time; "
          + "finish or break out of a loop before starting the next, and use one provider per thread");
    }
  }

  /** True if iteration {@code ticket} is current and the provider open. */
  public synchronized boolean isCurrent(long ticket) {
    return !closed && ticket == generation;
  }

  /** Iteration {@code ticket} has finished or was closed: another thread may start one. */
  public synchronized void end(long ticket) {
    if (ticket == generation) {
      active = false;
      stopper = null;
    }
  }

  /** Ends the current iteration (restore, reset): its next call throws; its threads stop now. */
  public void supersede() {
    end(false);
  }

  /** Closes: stops the current iteration; returns false if already closed. */
  public boolean close() {
    return end(true);
  }

  /**
   * True if an unfinished iteration runs on another live thread: its consumer may still be reading
   * the batch it holds, so a close from here must not free the buffers under it (the garbage
   * collector frees them once the batch is dropped).
   */
  public synchronized boolean iteratedElsewhere() {
    Thread o = owner;
    return active && o != null && o != Thread.currentThread() && o.isAlive();
  }

  /** Ends the current iteration, and with {@code close} the provider; false if it was already closed. */
  private boolean end(boolean close) {
    Runnable stop;
    synchronized (this) {
      if (close) {
        if (closed) {
          return false;
        }
        closed = true;
      }
      generation++;
      active = false;
      stop = stopper;
      stopper = null;
    }
    if (stop != null) {
      stop.run();
    }
    return true;
  }

  /** Throws if closed. */
  public synchronized void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this " + provider + " is closed");
    }
  }

  /**
   * Takes the write lock for iteration {@code ticket}'s next batch.
   *
   * @throws IllegalStateException if the iteration is no longer current (the lock is not held then)
   */
  public void lockWriting(long ticket) {
    writing.lock();
    try {
      check(ticket);
    } catch (RuntimeException e) {
      writing.unlock();
      throw e;
    }
  }

  /** Takes the write lock for work on the provider's state (plan, restore, freeing buffers). */
  public void lockWriting() {
    writing.lock();
  }

  public void unlockWriting() {
    writing.unlock();
  }
}
