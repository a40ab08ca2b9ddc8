package dev.minibatch.runtime.pipeline;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A bounded queue of chunks between producer threads and one consumer. The bound counts items, not
 * chunks. Producers block while it is full; the consumer blocks while it is empty; nobody spins.
 * The first failure, the end of all producers and the consumer's close are states every waiter
 * sees.
 */
final class Channel {
  /** A run of items; {@code items[0, size)} are valid. */
  record Chunk(@Nullable Object[] items, int size) {}

  /** Thrown inside a producer when the consumer has gone, to unwind it. */
  static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super("the consumer closed the pipeline", null, false, false);
    }
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final Condition notFull = lock.newCondition();
  private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
  private final int capacity;
  private final boolean synchronous;
  private long putCount;
  private long takenCount;
  private int items;
  private int producersLeft;
  private volatile boolean closed;
  private @Nullable StageFailedException failure;

  /**
   * @param capacity the bound in items; 0 means unbounded
   * @param producers how many producers must {@link #finish()} before the consumer sees the end
   */
  Channel(int capacity, int producers) {
    this(capacity, producers, false);
  }

  /**
   * @param synchronous if true, {@link #put} returns only once the consumer has taken the chunk (a
   *     hand-off: the producer never runs more than one item ahead of what the consumer holds)
   */
  Channel(int capacity, int producers, boolean synchronous) {
    this.capacity = capacity <= 0 ? Integer.MAX_VALUE : capacity;
    this.producersLeft = producers;
    this.synchronous = synchronous;
  }

  int capacity() {
    return capacity;
  }

  /** Items queued now (for stats; unsynchronised read is fine for a gauge). */
  int depth() {
    return items;
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Queues a chunk, waiting while the queue is full; returns the nanoseconds spent blocked.
   *
   * @throws Stopped if the consumer closed the channel or a failure ended it
   * @throws InterruptedException if the producer is interrupted while blocked
   */
  long put(Object[] chunk, int size) throws InterruptedException {
    lock.lock();
    try {
      long blockedSince = 0;
      // An oversized chunk may go into an empty queue, so a chunk never waits forever.
      while (!closed && failure == null && items > 0 && (long) items + size > capacity) {
        if (blockedSince == 0) {
          blockedSince = System.nanoTime();
        }
        notFull.await();
      }
      if (closed || failure != null) {
        throw new Stopped();
      }
      chunks.add(new Chunk(chunk, size));
      items += size;
      notEmpty.signal();
      if (synchronous) {
        long ticket = ++putCount;
        while (!closed && failure == null && takenCount < ticket) {
          if (blockedSince == 0) {
            blockedSince = System.nanoTime();
          }
          notFull.await();
        }
        if (closed || failure != null) {
          throw new Stopped();
        }
      }
      return blockedSince == 0 ? 0 : System.nanoTime() - blockedSince;
    } finally {
      lock.unlock();
    }
  }

  /** One producer has no more items. */
  void finish() {
    lock.lock();
    try {
      producersLeft--;
      notEmpty.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Records the first failure; everyone waiting wakes up and sees it. */
  void fail(StageFailedException e) {
    lock.lock();
    try {
      if (failure == null && !closed) {
        failure = e;
      }
      notEmpty.signalAll();
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The next chunk, waiting while none is queued; null at the end.
   *
   * @throws StageFailedException a producer's failure, thrown here on the consumer's thread
   */
  @Nullable Chunk take(StageCounters counters) {
    lock.lock();
    try {
      long waitingSince = 0;
      try {
        while (true) {
          if (failure != null) {
            throw failure.rethrownHere();
          }
          Chunk c = chunks.poll();
          if (c != null) {
            items -= c.size();
            takenCount++;
            notFull.signalAll();
            return c;
          }
          if (producersLeft <= 0 || closed) {
            return null;
          }
          if (waitingSince == 0) {
            waitingSince = System.nanoTime();
          }
          notEmpty.await();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StageFailedException(counters.name, StageFailedException.NO_SAMPLE, e);
      } finally {
        if (waitingSince != 0) {
          counters.consumerWait.add(System.nanoTime() - waitingSince);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** The consumer has gone: producers stop at their next hand-off. */
  void close() {
    lock.lock();
    try {
      closed = true;
      chunks.clear();
      items = 0;
      notEmpty.signalAll();
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
