package dev.minibatch.runtime.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hand-off primitive on its own, driving a bounded queue built on it the way {@link Channel} is. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandOffTest {

  /** A bounded FIFO of ints on a hand-off: the smallest stage one can build on it. */
  static final class Queue {
    final StageCounters counters;
    final HandOff handOff;
    final ArrayDeque<Integer> items = new ArrayDeque<>();
    final int capacity;

    Queue(int capacity, int producers, HandOff.OnFailure onFailure) {
      this.capacity = capacity;
      this.counters = new StageCounters("test", producers, capacity, items::size);
      this.handOff = new HandOff(counters, producers, onFailure, 1);
    }

    Queue(int capacity, int producers) {
      this(capacity, producers, HandOff.OnFailure.AT_ONCE);
    }

    /** False if the producer should stop. */
    boolean put(int v) throws InterruptedException {
      return handOff.put(() -> items.size() < capacity && items.add(v) ? Boolean.TRUE : null) != null;
    }

    @Nullable Integer take() {
      return handOff.take(items::poll);
    }
  }

  /** Runs {@code body} on a new thread; its result or failure is in the future. */
  private static <R> Started<R> start(ThrowingSupplier<R> body) {
    CompletableFuture<R> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(body.get());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, "handoff-test");
    t.setDaemon(true);
    t.start();
    return new Started<>(t, result);
  }

  interface ThrowingSupplier<R> {
    R get() throws Exception;
  }

  record Started<R>(Thread thread, CompletableFuture<R> result) {
    /** Waits until the thread is parked (blocked in the hand-off); the test's timeout bounds it. */
    Started<R> awaitBlocked() {
      while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
        assertFalse(result.isDone(), "returned instead of blocking: " + result);
        Thread.onSpinWait();
      }
      return this;
    }

    R join() throws InterruptedException {
      thread.join();
      return result.join();
    }
  }

  @Test
  void aPutIntoAFullQueueBlocksUntilTheConsumerTakesAndCountsTheBlockedTime() throws Exception {
    Queue q = new Queue(2, 1);
    assertTrue(q.put(1));
    assertTrue(q.put(2));
    Started<Boolean> third = start(() -> q.put(3)).awaitBlocked();
    assertFalse(third.result().isDone());
    // The producer stays blocked for at least this long: a known lower bound for its blocked time.
    TimeUnit.MILLISECONDS.sleep(20);
    assertEquals(1, q.take());
    assertTrue(third.join());
    assertTrue(q.counters.snapshot().blockedOutputNanos() >= TimeUnit.MILLISECONDS.toNanos(20));
    assertEquals(2, q.take());
    assertEquals(3, q.take());
  }

  @Test
  void aTakeFromAnEmptyQueueBlocksUntilAnItemArrivesAndCountsTheConsumerWait() throws Exception {
    Queue q = new Queue(2, 1);
    Started<Integer> take = start(q::take).awaitBlocked();
    // The consumer stays blocked for at least this long: a known lower bound for its wait.
    TimeUnit.MILLISECONDS.sleep(20);
    assertTrue(q.put(7));
    assertEquals(7, take.join());
    assertTrue(q.counters.snapshot().consumerWaitNanos() >= TimeUnit.MILLISECONDS.toNanos(20));
  }

  @Test
  void closeWakesABlockedPutWhichThenStops() throws Exception {
    Queue q = new Queue(1, 1);
    assertTrue(q.put(1));
    Started<Boolean> put = start(() -> q.put(2)).awaitBlocked();
    q.handOff.close();
    assertFalse(put.join());
    assertFalse(q.put(3), "a put after close stops the producer");
  }

  @Test
  void closeWakesABlockedTakeWhichThenSeesTheEnd() throws Exception {
    Queue q = new Queue(1, 1);
    Started<Integer> take = start(q::take).awaitBlocked();
    q.handOff.close(q.items::clear);
    assertNull(take.join());
    assertTrue(q.handOff.isClosed());
  }

  @Test
  void theFirstFailureWinsAndReachesTheConsumerOnItsOwnThread() throws Exception {
    Queue q = new Queue(4, 2);
    StageFailedException first = new StageFailedException("test", 3, new IllegalStateException("first"));
    StageFailedException second = new StageFailedException("test", 9, new IllegalStateException("second"));
    assertTrue(q.put(1));
    q.handOff.fail(first);
    q.handOff.fail(second);
    // Thrown at once, before the queued item (AT_ONCE), as a copy made on the consumer's thread.
    StageFailedException seen = assertThrows(StageFailedException.class, q::take);
    assertEquals("stage 'test' failed on sample 3: java.lang.IllegalStateException: first", seen.getMessage());
    assertSame(first.getCause(), seen.getCause());
    assertNotSame(first, seen);
    assertEquals(3, seen.sampleIndex());
    assertFalse(q.put(2), "a producer stops once a failure is recorded");
    assertTrue(q.handOff.stopped());
  }

  @Test
  void aFailureWakesABlockedTake() throws Exception {
    Queue q = new Queue(1, 1);
    Started<Integer> take = start(q::take).awaitBlocked();
    q.handOff.fail(new StageFailedException("test", StageFailedException.NO_SAMPLE, new RuntimeException("boom")));
    take.thread().join();
    Throwable thrown = assertThrows(Exception.class, take.result()::join).getCause();
    assertInstanceOf(StageFailedException.class, thrown);
    assertEquals("stage 'test' failed: java.lang.RuntimeException: boom", thrown.getMessage());
  }

  @Test
  void aFailureAfterCloseIsIgnored() {
    Queue q = new Queue(1, 1);
    q.handOff.close();
    q.handOff.fail(new StageFailedException("test", 0, new RuntimeException("late")));
    assertNull(q.take());
  }

  @Test
  void afterReadyDeliversWhatIsReadyBeforeTheFailure() throws Exception {
    Queue q = new Queue(4, 1, HandOff.OnFailure.AFTER_READY);
    assertTrue(q.put(1));
    assertTrue(q.put(2));
    q.handOff.fail(new StageFailedException("test", 2, new RuntimeException("third")));
    assertEquals(1, q.take());
    assertEquals(2, q.take());
    assertEquals(2, assertThrows(StageFailedException.class, q::take).sampleIndex());
  }

  @Test
  void theEndComesOnlyAfterEveryProducerFinishedAndTheQueueIsEmpty() throws Exception {
    Queue q = new Queue(4, 3);
    assertTrue(q.put(5));
    assertFalse(q.handOff.finish());
    assertFalse(q.handOff.finish());
    assertEquals(5, q.take());
    Started<Integer> take = start(q::take).awaitBlocked();
    assertTrue(q.handOff.finish(), "the third producer is the last");
    assertNull(take.join());
    assertNull(q.take());
  }

  @Test
  void anInterruptedTakeFailsNamingTheStageAndKeepsTheStatus() throws Exception {
    Queue q = new Queue(1, 1);
    AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
    Started<Integer> take = start(() -> {
      try {
        return q.take();
      } finally {
        interruptedAfter.set(Thread.currentThread().isInterrupted());
      }
    }).awaitBlocked();
    take.thread().interrupt();
    take.thread().join();
    Throwable thrown = assertThrows(Exception.class, take.result()::join).getCause();
    StageFailedException e = assertInstanceOf(StageFailedException.class, thrown);
    assertEquals("test", e.stage());
    assertInstanceOf(InterruptedException.class, e.getCause());
    assertTrue(interruptedAfter.get());
  }

  @Test
  void anUninterruptibleTakeKeepsWaitingThroughAnInterrupt() throws Exception {
    Queue q = new Queue(1, 1);
    AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
    Started<Integer> take = start(() -> {
      Integer v = q.handOff.takeUninterruptibly(q.items::poll);
      interruptedAfter.set(Thread.currentThread().isInterrupted());
      return v;
    }).awaitBlocked();
    take.thread().interrupt();
    // Still waiting: parked again after the interrupt, not returned.
    take.awaitBlocked();
    assertTrue(q.put(4));
    assertEquals(4, take.join());
    assertTrue(interruptedAfter.get(), "the interrupt status is kept for the caller");
  }

  @Test
  void noItemIsLostOrDuplicatedWhenManyProducersFeedASmallQueue() throws Exception {
    int producers = 4;
    int perProducer = 20_000;
    Queue q = new Queue(8, producers);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int base = p * perProducer;
      Thread t = new Thread(() -> {
        try {
          for (int i = 1; i <= perProducer; i++) {
            if (!q.put(base + i)) {
              return;
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          q.handOff.finish();
        }
      });
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    long sum = 0;
    long count = 0;
    int[] lastOf = new int[producers];
    for (Integer v = q.take(); v != null; v = q.take()) {
      sum += v;
      count++;
      int p = (v - 1) / perProducer;
      assertTrue(v > lastOf[p], "producer " + p + " out of order: " + v + " after " + lastOf[p]);
      lastOf[p] = v;
    }
    for (Thread t : threads) {
      t.join();
    }
    long n = (long) producers * perProducer;
    assertEquals(n, count);
    // The values are 1..n, each once: their sum is n(n+1)/2.
    assertEquals(n * (n + 1) / 2, sum);
  }

  @Test
  void unlockedWorkOnlyFromAStepHoldingTheLockOnce() {
    Queue q = new Queue(1, 1);
    assertThrows(IllegalStateException.class, () -> q.handOff.unlocked(() -> {}));
  }
  /** The spin budget follows the last wait: 1.5 times a short one, capped; the minimum after a long one. */
  @Test
  void theSpinBudgetFollowsTheLastWait() {
    assertEquals(HandOff.MIN_SPIN_NANOS, HandOff.nextSpin(1_000));
    assertEquals(150_000, HandOff.nextSpin(100_000));
    assertEquals(HandOff.MAX_SPIN_NANOS, HandOff.nextSpin(400_000));
    assertEquals(HandOff.MIN_SPIN_NANOS, HandOff.nextSpin(2_000_000));
  }

  /**
   * Many short hand-offs in a row, where the spin usually sees the item: no item is lost or
   * repeated, whether it arrives while the consumer spins or after it parked.
   */
  @Test
  void itemsArriveInOrderWhetherTheConsumerSpinsOrParks() throws Exception {
    Queue q = new Queue(1, 1);
    int n = 20_000;
    Started<Integer> consumer = start(() -> {
      for (int i = 0; i < n; i++) {
        Integer v = q.take();
        if (v == null || v != i) {
          throw new AssertionError("expected " + i + ", got " + v);
        }
      }
      return q.take() == null ? n : -1;
    });
    for (int i = 0; i < n; i++) {
      if (i % 1000 == 999) {
        // Now and then the item comes only once the consumer has stopped spinning and parked.
        consumer.awaitBlocked();
      }
      q.put(i);
    }
    q.handOff.finish();
    assertEquals(n, consumer.result.get(30, TimeUnit.SECONDS));
  }
}
