package dev.minibatch.runtime.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.internal.pipeline.LiveThreads;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Failure propagation, early exit without leaked threads, and determinism across worker counts. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineBehaviourTest {

  /** A deep pipeline with three threaded stages. */
  static Reader<Integer> deep(int workers) {
    return Readers.<Integer>generate(8, out -> {
      for (int i = 0; i < 100_000; i++) {
        out.emit(i);
      }
    }).buffered(16).xmap(workers, 8, true, x -> x * 2).buffered(4);
  }

  // ---- failures ----

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void anXmapWorkersExceptionNamesTheStageAndTheSample(int workers) {
    IllegalStateException boom = new IllegalStateException("boom");
    for (boolean ordered : new boolean[] {true, false}) {
      Reader<Integer> r = Readers.range(0, 1000).xmap(ParallelOptions.of(b -> b.workers(workers).bufferSize(4)
          .ordered(ordered).name("decode")), (x, ctx) -> {
            if (x == 7) {
              throw boom;
            }
            return x;
          });
      StageFailedException e = assertThrows(StageFailedException.class, r::toList);
      assertEquals("decode", e.stage());
      assertEquals(7, e.sampleIndex());
      assertSame(boom, e.getCause());
      assertTrue(e.getMessage().contains("'decode'") && e.getMessage().contains("sample 7"), e.getMessage());
    }
  }

  /** Issue 10, defect 4: a source failing at item 37 was reported as sample 38. */
  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void aSourceFailureUnderXmapNamesTheFailingItem(int workers) {
    IllegalStateException boom = new IllegalStateException("item 37 is unreadable");
    Reader<Integer> source = () -> dev.minibatch.runtime.pipeline.PipelineIterator.of(new java.util.Iterator<Integer>() {
      int next;

      @Override
      public boolean hasNext() {
        return next < 100;
      }

      @Override
      public Integer next() {
        if (next == 37) {
          throw boom;
        }
        return next++;
      }
    });
    StageFailedException e = assertThrows(StageFailedException.class,
        () -> source.xmap(workers, 8, true, x -> x).toList());
    assertEquals(37, e.sampleIndex(), e.getMessage());
    assertEquals("source of xmap", e.stage());
    assertSame(boom, e.getCause());
  }

  @Test
  void aSequentialMapFailingOnTheBufferedThreadKeepsItsOwnName() {
    ArithmeticException boom = new ArithmeticException("/ by zero");
    Reader<Integer> r = Readers.range(0, 100).map(x -> {
      if (x == 42) {
        throw boom;
      }
      return x;
    }).buffered(4);
    List<Integer> seen = new ArrayList<>();
    StageFailedException e = assertThrows(StageFailedException.class, () -> r.forEach(seen::add));
    assertEquals("map", e.stage());
    assertEquals(42, e.sampleIndex());
    assertSame(boom, e.getCause());
    assertTrue(seen.size() <= 42);
  }

  @Test
  void aGeneratorFailureNamesTheSampleBeingProduced() {
    Reader<Integer> r = Readers.generate(out -> {
      out.emit(0);
      out.emit(1);
      throw new IllegalArgumentException("bad record");
    });
    StageFailedException e = assertThrows(StageFailedException.class, r::toList);
    assertEquals("generate", e.stage());
    assertEquals(2, e.sampleIndex());
    assertInstanceOf(IllegalArgumentException.class, e.getCause());
  }

  @Test
  void aNamedGeneratorIsItsOwnStageInFailuresAndStats() {
    Reader<Integer> failing = Readers.generate("sensor", 4, out -> {
      out.emit(0);
      throw new IllegalArgumentException("unplugged");
    });
    assertEquals("sensor", assertThrows(StageFailedException.class, failing::toList).stage());
    try (PipelineIterator<Integer> it = Readers.<Integer>generate("sensor", 4, out -> out.emit(7)).iterator()) {
      assertEquals(7, it.next());
      assertTrue(it.stats().summary().startsWith("sensor[1]: "), it.stats().summary());
    }
  }

  @Test
  void aFailureStopsEveryThread() throws InterruptedException {
    Set<Thread> before = LiveThreads.workers();
    Reader<Integer> r = deep(4).map(x -> {
      if (x == 5000) {
        throw new IllegalStateException("late");
      }
      return x;
    }).buffered(8);
    assertThrows(StageFailedException.class, r::toList);
    assertEquals(Set.of(), LiveThreads.awaitOnly(before, 20));
  }

  // ---- early exit ----

  @Test
  void closeStopsEveryThreadAtOnce() {
    Set<Thread> before = LiveThreads.workers();
    try (PipelineIterator<Integer> it = deep(4).iterator()) {
      for (int i = 0; i < 10; i++) {
        assertEquals(2 * i, it.next());
      }
      assertTrue(LiveThreads.workers().size() >= before.size() + 7, "1 generator + 2 buffered + 4 xmap threads");
    }
    // close() joins: no waiting needed.
    Set<Thread> after = LiveThreads.workers();
    after.removeAll(before);
    assertEquals(Set.of(), after);
  }

  @Test
  void anExceptionInTheConsumerStopsEveryThread() {
    Set<Thread> before = LiveThreads.workers();
    assertThrows(IllegalStateException.class, () -> deep(2).forEach(x -> {
      if (x == 20) {
        throw new IllegalStateException("consumer failed");
      }
    }));
    Set<Thread> after = LiveThreads.workers();
    after.removeAll(before);
    assertEquals(Set.of(), after);
  }

  @Test
  void aBreakOutOfAForEachLoopStopsEveryThreadOnceTheIteratorIsCollected() throws InterruptedException {
    Set<Thread> before = LiveThreads.workers();
    breakEarly();
    assertEquals(Set.of(), LiveThreads.awaitOnly(before, 30));
  }

  private static void breakEarly() {
    int n = 0;
    for (int x : deep(2)) {
      if (++n == 10) {
        break;
      }
    }
  }

  @Test
  void closingAGeneratorUnwindsItsBody() throws InterruptedException {
    AtomicBoolean finallyRan = new AtomicBoolean();
    Object done = new Object();
    Reader<Integer> r = Readers.generate(1, out -> {
      try {
        for (int i = 0; ; i++) {
          out.emit(i);
        }
      } finally {
        synchronized (done) {
          finallyRan.set(true);
          done.notifyAll();
        }
      }
    });
    try (PipelineIterator<Integer> it = r.iterator()) {
      assertEquals(0, it.next());
    }
    synchronized (done) {
      // close() joined the producer, so its finally has already run.
      assertTrue(finallyRan.get());
    }
  }

  // ---- determinism ----

  @Test
  void aSeededPipelineGivesTheSameOutputForAnyNumberOfWorkers() {
    List<List<Long>> outputs = new ArrayList<>();
    for (int workers : new int[] {1, 2, 3, 8}) {
      Reader<Long> r = Readers.range(0, 2000)
          .shuffle(128, 99)
          .buffered(32)
          .xmap(ParallelOptions.of(b -> b.workers(workers).bufferSize(16).seed(5)),
              (x, ctx) -> x * 1_000_000L + ctx.random().nextInt(1_000_000))
          .filter(x -> x % 3 != 0)
          .buffered(8);
      List<Long> twoEpochs = new ArrayList<>(r.toList());
      twoEpochs.addAll(r.toList());
      outputs.add(twoEpochs);
    }
    for (List<Long> o : outputs) {
      assertEquals(outputs.get(0), o);
    }
    // And the random part really varies with the epoch.
    List<Long> o = outputs.get(0);
    assertTrue(!o.subList(0, o.size() / 2).equals(o.subList(o.size() / 2, o.size())));
  }

  @Test
  void flushHandsOverTheSamplesEmittedBeforeTheGeneratorWaits() throws InterruptedException {
    // The generator emits 103 fast samples, flushes, and then waits until the consumer has read them
    // all. Fast samples go over in groups (a queue of 64 hands over up to 32 at a time once the pacer
    // has seen that they are cheap), so without the flush the last few would sit in the producer's
    // group while the consumer waits for them. The wait is bounded so that a broken flush fails the
    // assertion instead of hanging the build.
    int n = 103;
    java.util.concurrent.CountDownLatch consumerHasAll = new java.util.concurrent.CountDownLatch(1);
    AtomicBoolean readBeforeTheWaitEnded = new AtomicBoolean();
    Reader<Integer> r = Readers.generate(out -> {
      for (int i = 0; i < n; i++) {
        out.emit(i);
      }
      out.flush();
      try {
        readBeforeTheWaitEnded.set(consumerHasAll.await(20, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      out.emit(n);
    });
    try (PipelineIterator<Integer> it = r.iterator()) {
      for (int i = 0; i < n; i++) {
        assertEquals(i, it.next());
      }
      consumerHasAll.countDown();
      assertEquals(n, it.next());
      assertTrue(!it.hasNext());
    }
    assertTrue(readBeforeTheWaitEnded.get(), "the consumer read the " + n + " samples only after the generator's wait");
  }
}
