package dev.minibatch.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.internal.pipeline.LiveThreads;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MulticastTest {

  /**
   * A source that writes item j into buffer j % buffers of a fixed pool and refuses to overwrite a
   * buffer that has not been released: the situation of a provider reusing its batch buffers.
   */
  static final class PooledSource implements Iterator<int[]> {
    final int[][] pool;
    final boolean[] free;
    final int n;
    int produced;
    volatile boolean closed;
    final AtomicInteger violations = new AtomicInteger();

    PooledSource(int buffers, int n) {
      this.pool = new int[buffers][1];
      this.free = new boolean[buffers];
      java.util.Arrays.fill(free, true);
      this.n = n;
    }

    @Override
    public synchronized boolean hasNext() {
      return produced < n;
    }

    @Override
    public synchronized int[] next() {
      if (produced >= n) {
        throw new NoSuchElementException();
      }
      int b = produced % pool.length;
      if (!free[b]) {
        violations.incrementAndGet();
      }
      free[b] = false;
      pool[b][0] = produced++;
      return pool[b];
    }

    synchronized void release(int[] buffer) {
      for (int b = 0; b < pool.length; b++) {
        if (pool[b] == buffer) {
          free[b] = true;
        }
      }
    }
  }

  private static List<Integer> drain(PipelineIterator<int[]> it, int stopAfter) {
    List<Integer> seen = new ArrayList<>();
    try (it) {
      while (it.hasNext()) {
        int[] buffer = it.next();
        int value = buffer[0];
        // Work on the buffer a little, then check nobody overwrote it meanwhile.
        double x = 0;
        for (int k = 0; k < 2000 + 500 * (value % 7); k++) {
          x += Math.sqrt(k + value);
        }
        if (buffer[0] != value || x < 0) {
          throw new AssertionError("buffer overwritten while read: " + value + " became " + buffer[0]);
        }
        seen.add(value);
        if (seen.size() == stopAfter) {
          break;
        }
      }
    }
    return seen;
  }

  @Test
  void everyConsumerSeesEveryItemOnceAndBuffersAreReusedOnlyAfterAllReleasedThem() throws Exception {
    for (int window : new int[] {1, 2, 3}) {
      int n = 300;
      int k = 3;
      PooledSource source = new PooledSource(window, n);
      Multicast<int[]> m = Multicast.<int[]>builder().consumers(k).window(window).onRelease(source::release).build(source);
      ExecutorService pool = Executors.newFixedThreadPool(k);
      try {
        List<Future<List<Integer>>> results = new ArrayList<>();
        for (int c = 0; c < k; c++) {
          PipelineIterator<int[]> it = m.consumer(c);
          results.add(pool.submit(() -> drain(it, -1)));
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          expected.add(i);
        }
        for (Future<List<Integer>> f : results) {
          assertEquals(expected, f.get(30, TimeUnit.SECONDS), "window " + window);
        }
        assertEquals(0, source.violations.get(), "a buffer was reused before every consumer released it");
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aConsumerThatClosesEarlyDoesNotStallTheOthers() throws Exception {
    int n = 200;
    PooledSource source = new PooledSource(1, n);
    Multicast<int[]> m = Multicast.<int[]>builder().consumers(3).onRelease(source::release).build(source);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<List<Integer>> quitter = pool.submit(() -> drain(m.consumer(0), 5));
      Future<List<Integer>> a = pool.submit(() -> drain(m.consumer(1), -1));
      Future<List<Integer>> b = pool.submit(() -> drain(m.consumer(2), -1));
      assertEquals(List.of(0, 1, 2, 3, 4), quitter.get(30, TimeUnit.SECONDS));
      assertEquals(n, a.get(30, TimeUnit.SECONDS).size());
      assertEquals(n, b.get(30, TimeUnit.SECONDS).size());
      assertEquals(0, source.violations.get());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theSlowestConsumerSetsThePace() throws Exception {
    // Window 2: the fast consumer may run one item ahead of the slow one, no further.
    PooledSource source = new PooledSource(2, 10);
    Multicast<int[]> m = Multicast.<int[]>builder().consumers(2).window(2).onRelease(source::release).build(source);
    PipelineIterator<int[]> slow = m.consumer(1);
    List<Integer> fastSeen = Collections.synchronizedList(new ArrayList<>());
    Thread fast = new Thread(() -> m.consumer(0).forEachRemaining(b -> fastSeen.add(b[0])), "fast-consumer");
    fast.start();
    awaitWaiting(fast, () -> fastSeen.size() == 2);
    assertEquals(List.of(0, 1), fastSeen, "blocked until the slow consumer releases item 0");
    assertEquals(0, slow.next()[0]);
    assertTrue(slow.hasNext()); // moving on releases item 0
    awaitWaiting(fast, () -> fastSeen.size() == 3);
    assertEquals(List.of(0, 1, 2), fastSeen);
    slow.close(); // leaving releases everything: the fast consumer runs to the end
    fast.join(30_000);
    assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), fastSeen);
    assertEquals(0, source.violations.get());
  }

  /** Parked on a condition: a stalled consumer waits in slices (it may ask for a collection between them). */
  private static boolean parked(Thread t) {
    return t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING;
  }

  /** Waits (by joining) until {@code reached} holds and {@code t} is parked. */
  private static void awaitWaiting(Thread t, java.util.function.BooleanSupplier reached) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!(reached.getAsBoolean() && parked(t)) && t.isAlive() && System.nanoTime() < deadline) {
      t.join(5);
    }
    assertTrue(parked(t), t.getState().toString());
  }

  @Test
  void aSourceFailureReachesEveryConsumer() {
    Iterator<Integer> failing = new Iterator<>() {
      int i;

      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public Integer next() {
        if (i == 3) {
          throw new IllegalStateException("disk gone");
        }
        return i++;
      }
    };
    // A window larger than the stream, so one thread can drain one consumer after the other.
    Multicast<Integer> m = Multicast.<Integer>builder().consumers(2).window(8).build(failing);
    for (PipelineIterator<Integer> c : m.consumers()) {
      List<Integer> seen = new ArrayList<>();
      StageFailedException e = assertThrows(StageFailedException.class, () -> c.forEachRemaining(seen::add));
      assertEquals(List.of(0, 1, 2), seen);
      assertEquals(3, e.sampleIndex());
      assertEquals("disk gone", e.getCause().getMessage());
    }
  }

  @Test
  void theSourceIsClosedWhenEveryConsumerHasGone() {
    AtomicInteger closes = new AtomicInteger();
    PipelineIterator<Integer> source = new PipelineIterator<>() {
      final Iterator<Integer> it = List.of(1, 2, 3).iterator();

      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Integer next() {
        return it.next();
      }

      @Override
      public void close() {
        closes.incrementAndGet();
      }
    };
    Multicast<Integer> m = Multicast.<Integer>builder().consumers(2).window(4).build(source);
    List<Integer> a = new ArrayList<>();
    m.consumer(0).forEachRemaining(a::add);
    assertEquals(0, closes.get(), "consumer 1 may still read the last item");
    m.consumer(1).close();
    assertEquals(1, closes.get());
    assertEquals(List.of(1, 2, 3), a);
    m.close();
    assertEquals(1, closes.get());
  }

  /** Issue 10, defect 3: a consumer dropped without close() once hung the others and kept the source's thread. */
  @Test
  void aConsumerDroppedWithoutCloseIsReleasedSoTheOthersFinishAndTheSourceStops() throws Exception {
    java.util.Set<Thread> before = LiveThreads.workers();
    dev.minibatch.runtime.reader.Reader<Integer> numbers = dev.minibatch.runtime.reader.Readers.range(0, 200).buffered(4);
    Multicast<Integer> m = Multicast.<Integer>builder().consumers(2).window(2).build(numbers.iterator());
    readTwoAndDrop(m);
    List<Integer> all = new ArrayList<>();
    m.consumer(0).forEachRemaining(all::add); // hung forever before the fix
    assertEquals(200, all.size());
    assertEquals(java.util.stream.IntStream.range(0, 200).boxed().toList(), all);
    assertTrue(LiveThreads.awaitOnly(before, 10).isEmpty(), "the buffered worker outlived every consumer");
  }

  /** Reads as far as the window lets one consumer run ahead, then drops it without close(). */
  private static void readTwoAndDrop(Multicast<Integer> m) {
    PipelineIterator<Integer> dropped = m.consumer(1);
    for (int i = 0; i < 2; i++) {
      assertEquals(i, dropped.next());
    }
  }
}
