package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * A bounded queue of chunks between producer threads and one consumer. The bound counts items, not
 * chunks. Producers block while it is full; the consumer blocks while it is empty; nobody spins.
 * The first failure, the end of all producers and the consumer's close are states every waiter
 * sees; the waiting itself is the {@link HandOff}'s.
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

  private final StageCounters counters;
  private final HandOff handOff;
  private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
  private final int capacity;
  private final boolean synchronous;
  private long putCount;
  private long takenCount;
  private volatile int items;

  /**
   * A channel of stage {@code name}, with counters of its own (its blocked puts and the consumer's
   * waits are counted there).
   *
   * @param capacity the bound in items; 0 means unbounded
   * @param producers how many producers must {@link #finish()} before the consumer sees the end
   * @param synchronous if true, {@link #put} returns only once the consumer has taken the chunk (a
   *     hand-off: the producer never runs more than one item ahead of what the consumer holds)
   */
  Channel(String name, int capacity, int producers, boolean synchronous) {
    this.capacity = capacity <= 0 ? Integer.MAX_VALUE : capacity;
    this.synchronous = synchronous;
    this.counters = new StageCounters(name, producers, this.capacity, this::depth);
    this.handOff = new HandOff(counters, producers);
  }

  /** The stage's counters. */
  StageCounters counters() {
    return counters;
  }

  int capacity() {
    return capacity;
  }

  /** Items queued now (for stats; a gauge, read without the lock). */
  int depth() {
    return items;
  }

  boolean isClosed() {
    return handOff.isClosed();
  }

  /**
   * Queues a chunk, waiting while the queue is full (the time blocked goes to the stage's counters).
   *
   * @throws Stopped if the consumer closed the channel or a failure ended it
   * @throws InterruptedException if the producer is interrupted while blocked
   */
  void put(Object[] chunk, int size) throws InterruptedException {
    Long ticket = handOff.put(() -> {
      // An oversized chunk may go into an empty queue, so a chunk never waits forever.
      if (items > 0 && (long) items + size > capacity) {
        return null;
      }
      chunks.add(new Chunk(chunk, size));
      items += size;
      return ++putCount;
    });
    if (ticket == null) {
      throw new Stopped();
    }
    if (synchronous && handOff.put(() -> takenCount >= ticket ? Boolean.TRUE : null) == null) {
      throw new Stopped();
    }
  }

  /** One producer has no more items. */
  void finish() {
    handOff.finish();
  }

  /** Records the first failure; everyone waiting wakes up and sees it. */
  void fail(StageFailedException e) {
    handOff.fail(e);
  }

  /**
   * The next chunk, waiting while none is queued; null at the end.
   *
   * @throws StageFailedException a producer's failure, thrown here on the consumer's thread
   */
  @Nullable Chunk take() {
    return handOff.take(() -> {
      Chunk c = chunks.poll();
      if (c != null) {
        items -= c.size();
        takenCount++;
      }
      return c;
    });
  }

  /** The consumer has gone: producers stop at their next hand-off. */
  void close() {
    handOff.close(() -> {
      chunks.clear();
      items = 0;
    });
  }
}
