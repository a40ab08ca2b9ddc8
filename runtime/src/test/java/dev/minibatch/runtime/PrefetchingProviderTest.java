package dev.minibatch.runtime;

import dev.minibatch.runtime.engine.PrefetchingProvider;
import dev.minibatch.runtime.pipeline.StageFailedException;

import dev.minibatch.runtime.array.ArrayDataProvider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.example.ComputedProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrefetchingProviderTest {
  private static long prefetchThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("minibatch-prefetch")).count();
  }

  private static ArrayDataProvider source(int n) {
    return ArrayDataProviderTest.provider(n, b -> b.batchSize(7).shuffle(true).seed(5));
  }

  @Test
  void deliversExactlyTheWrappedProvidersBatchesAndTheyStayIntactWhileInUse() {
    List<List<Integer>> expected = new ArrayList<>();
    try (ArrayDataProvider p = source(200)) {
      for (int e = 0; e < 5; e++) {
        expected.addAll(ArrayDataProviderTest.epoch(p));
      }
    }
    List<List<Integer>> seen = new ArrayList<>();
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(source(200))) {
      for (int e = 0; e < 5; e++) {
        for (NamedBatch b : p) {
          List<Integer> ids = ids(b);
          // Work on the batch while the background thread prepares the next one; it must not change.
          double sum = b.get("data").sumNumber().doubleValue() + b.get("softmax_label").sumNumber().doubleValue();
          assertEquals(ids, ids(b), "the batch changed while in use");
          assertTrue(sum > 0);
          seen.add(ids);
        }
      }
    }
    assertEquals(expected, seen);
    assertEquals(0, prefetchThreads());
  }

  /**
   * Over a provider the wrapper does not know (here an array provider with reader threads behind a
   * plain decorator), the thread takes batch {@code k + 1} while the consumer works on batch {@code
   * k}: the readers must not overwrite {@code k} meanwhile. In order, batch {@code k} holds samples
   * {@code 5k} to {@code 5k + 4}; the consumer reads each batch again after a pause long enough for
   * the readers to run as far ahead as they may.
   */
  @Test
  void overAProviderWithReaderThreadsBehindADecoratorABatchStaysIntactWhileInUse() throws InterruptedException {
    // A plain decorator (not Resumable, not on the engine): the wrapper takes its generic path.
    BatchProvider<NamedBatch> decorated =
        WrapperResumeTest.notResumable(ArrayDataProviderTest.provider(200, b -> b.batchSize(5).readers(2)));
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(decorated)) {
      int k = 0;
      for (NamedBatch b : p) {
        List<Integer> expected = IntStream.range(5 * k, 5 * k + 5).boxed().toList();
        assertEquals(expected, ids(b), "batch " + k);
        Thread.sleep(10);
        assertEquals(expected, ids(b), "batch " + k + " changed while in use");
        k++;
      }
      assertEquals(40, k);
    }
  }

  /**
   * {@code inner}, a {@link Resumable} provider not on the engine, whose iterators count down {@code
   * taken} at every batch taken from them (by the prefetch thread).
   */
  private static BatchProvider<NamedBatch> counted(dev.minibatch.runtime.reader.FeedingProvider inner,
      CountDownLatch taken) {
    final class Counted implements BatchProvider<NamedBatch>, Resumable {
      @Override
      public int batchSize() {
        return inner.batchSize();
      }

      @Override
      public List<DataDesc> provideData() {
        return inner.provideData();
      }

      @Override
      public List<DataDesc> provideLabel() {
        return inner.provideLabel();
      }

      @Override
      public BatchIterator<NamedBatch> iterator() {
        BatchIterator<NamedBatch> it = inner.iterator();
        return new BatchIterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public NamedBatch next() {
            NamedBatch b = it.next();
            taken.countDown();
            return b;
          }

          @Override
          public void close() {
            it.close();
          }
        };
      }

      @Override
      public IterationState saveState() {
        return inner.saveState();
      }

      @Override
      public void restoreState(IterationState state) {
        inner.restoreState(state);
      }

      @Override
      public void close() {
        inner.close();
      }
    }
    return new Counted();
  }

  private static dev.minibatch.runtime.reader.FeedingProvider stream(int n) {
    return dev.minibatch.runtime.reader.FeedingProvider.builder(dev.minibatch.runtime.reader.Readers.range(0, n)
        .map(i -> dev.minibatch.runtime.reader.Readers.Tuple.of((float) i))).data("data", 0).batchSize(3).build();
  }

  /**
   * Over a provider not on the engine, the thread has taken batch 2 when the consumer holds batch 1
   * (the test waits for it): the state is the one recorded with batch 1, so the restore resumes at
   * batch 2 ([3 4 5] of 10 samples in batches of 3), not after it.
   */
  @Test
  void overAResumableProviderNotOnTheEngineTheStateIsTheOneOfTheLastBatchTaken() throws InterruptedException {
    String state;
    CountDownLatch twoTaken = new CountDownLatch(2);
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(counted(stream(10), twoTaken))) {
      BatchIterator<NamedBatch> it = p.iterator();
      assertEquals(List.of(0, 1, 2), floats(it.next()));
      assertTrue(twoTaken.await(30, TimeUnit.SECONDS), "the prefetch thread took batch 2");
      IterationState s = p.saveState();
      assertEquals(List.of(0, 1), List.of(s.epoch(), s.position()));
      state = s.encode();
      for (int k = 0; k < 3; k++) {
        it.next();
      }
      assertFalse(it.hasNext());
      assertEquals(List.of(1, 0), List.of(p.saveState().epoch(), p.saveState().position()), "the epoch is over");
    }
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(stream(10))) {
      p.restoreState(IterationState.decode(state));
      List<List<Integer>> rest = new ArrayList<>();
      for (NamedBatch b : p) {
        rest.add(floats(b));
      }
      assertEquals(List.of(List.of(3, 4, 5), List.of(6, 7, 8), List.of(9)), rest);
    }
  }

  private static List<Integer> floats(NamedBatch b) {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < b.countSamples(); r++) {
      out.add((int) b.get("data").getFloat(r));
    }
    return out;
  }

  @Test
  void aStateSavedMidEpochResumesAfterTheLastBatchDeliveredNotTheOneWrittenAhead() {
    List<List<Integer>> whole;
    try (ArrayDataProvider p = source(100)) {
      whole = ArrayDataProviderTest.epoch(p);
    }
    String state;
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(source(100))) {
      java.util.Iterator<NamedBatch> it = p.iterator();
      for (int k = 0; k < 4; k++) {
        assertEquals(whole.get(k), ids(it.next()));
      }
      state = p.saveState().encode();
    }
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(source(100))) {
      p.restoreState(IterationState.decode(state));
      List<List<Integer>> rest = new ArrayList<>();
      for (NamedBatch b : p) {
        rest.add(ids(b));
      }
      assertEquals(whole.subList(4, whole.size()), rest, "the 5th batch on, none skipped or repeated");
    }
    BatchProvider<NamedBatch> foreign = notOnTheEngine(source(10), it -> it);
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(foreign)) {
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::saveState);
      assertTrue(e.getMessage().contains("takes batches ahead"), e.getMessage());
    }
  }

  /**
   * {@code inner} seen through a provider that is not one of the runtime's engine (so the wrapper
   * takes its generic path), its epochs passed through {@code iterators}.
   */
  private static BatchProvider<NamedBatch> notOnTheEngine(ArrayDataProvider inner,
      UnaryOperator<BatchIterator<NamedBatch>> iterators) {
    return new BatchProvider<>() {
      @Override
      public int batchSize() {
        return inner.batchSize();
      }

      @Override
      public List<DataDesc> provideData() {
        return inner.provideData();
      }

      @Override
      public List<DataDesc> provideLabel() {
        return inner.provideLabel();
      }

      @Override
      public BatchIterator<NamedBatch> iterator() {
        return iterators.apply(inner.iterator());
      }

      @Override
      public void close() {
        inner.close();
      }
    };
  }

  private static List<Integer> ids(NamedBatch b) {
    List<Integer> ids = new ArrayList<>();
    for (int r = 0; r < b.rows(); r++) {
      int id = (int) b.get("data").getFloat(r, 0);
      assertEquals(1000 + id, b.get("softmax_label").getInt(r), "label not aligned in row " + r);
      ids.add(id);
    }
    return ids;
  }

  @Test
  void breakingOutAndClosingStopTheThread() {
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(source(500))) {
      for (NamedBatch b : p) {
        break;
      }
      BatchIterator<NamedBatch> it = p.iterator(); // supersedes the abandoned epoch
      it.next();
      it.close();
      assertFalse(it.hasNext(), "a closed epoch is over");
    }
    assertEquals(0, prefetchThreads());
  }

  @Test
  void stopEndsTheThreadButLeavesTheLentProviderOpen() {
    try (ArrayDataProvider inner = source(500)) {
      PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(inner);
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      p.stop();
      assertEquals(0, prefetchThreads());
      assertThrows(IllegalStateException.class, it::hasNext);
      // The wrapped provider still works on its own.
      assertEquals(72, ArrayDataProviderTest.epoch(inner).size()); // ceil(500 / 7)
    }
  }

  @Test
  void aFailureOnTheBackgroundThreadReachesTheConsumerWithItsCause() {
    ArrayDataProvider inner = source(50);
    RuntimeException boom = new IllegalArgumentException("sample 17 is broken");
    BatchProvider<NamedBatch> failing = notOnTheEngine(inner, it -> new BatchIterator<>() {
      int n;

      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public NamedBatch next() {
        if (++n == 3) {
          throw boom;
        }
        return it.next();
      }

      @Override
      public void close() {
        it.close();
      }
    });
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(failing)) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      it.next();
      StageFailedException e = assertThrows(StageFailedException.class, it::next);
      assertEquals("prefetch", e.stage());
      assertSame(boom, e.getCause());
    }
    assertEquals(0, prefetchThreads());
  }

  /**
   * A computed provider of 20 batches of 4 whose rows record the thread that wrote them; {@code
   * onSample} runs for every sample before it is recorded.
   */
  private static ComputedProvider recording(Map<Integer, String> writers, IntConsumer onSample) {
    return ComputedProvider.builder().samples(80, 1, (i, k) -> {
      onSample.accept(i);
      writers.put(i, Thread.currentThread().getName());
      return i;
    }).batchSize(4).build();
  }

  /** The first value of every row of an epoch, running {@code beforeEach} before asking for each batch. */
  private static List<Integer> firstValues(BatchProvider<NamedBatch> p, Runnable beforeEach) {
    List<Integer> values = new ArrayList<>();
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (true) {
        beforeEach.run();
        if (!it.hasNext()) {
          break;
        }
        NamedBatch b = it.next();
        for (int r = 0; r < b.rows(); r++) {
          values.add((int) b.get("data").getFloat(r, 0));
        }
      }
    }
    return values;
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(30, TimeUnit.SECONDS), "the other thread never started writing");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void overAnEngineProviderASlowConsumerLeavesTheWritingToThePrefetchThread() {
    Map<Integer, String> writers = new ConcurrentHashMap<>();
    // One permit per batch known to be written: the writer starting batch k + 1 has marked batch k
    // written (the last batch counts at its last sample, when nothing is left to claim). The
    // consumer asks for batch k only after permit k, so it never finds its batch unwritten: a
    // consumer slower than the writer, without timing.
    Semaphore written = new Semaphore(0);
    IntConsumer count = i -> {
      if ((i % 4 == 0 && i > 0) || i == 79) {
        written.release();
      }
    };
    List<Integer> values;
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(recording(writers, count))) {
      int[] asked = {0};
      values = firstValues(p, () -> {
        if (asked[0]++ < 20) {
          try {
            assertTrue(written.tryAcquire(30, TimeUnit.SECONDS), "batch " + (asked[0] - 1) + " never written");
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        }
      });
    }
    assertEquals(IntStream.range(0, 80).boxed().toList(), values);
    long byThread = writers.values().stream().filter("minibatch-prefetch-0"::equals).count();
    // The consumer may write the first batch or two while the thread starts; never the rest.
    assertTrue(byThread >= 72, byThread + " of 80 samples written by the prefetch thread: " + writers);
    assertEquals(0, prefetchThreads());
  }

  @Test
  void overAnEngineProviderAConsumerThatWouldWaitWritesBatchesItselfAndTheBatchesStayTheSame() {
    Map<Integer, String> writers = new ConcurrentHashMap<>();
    String consumer = Thread.currentThread().getName();
    CountDownLatch consumerWrites = new CountDownLatch(1);
    CountDownLatch threadWrites = new CountDownLatch(1);
    // Each side's first sample waits until the other side writes too: the prefetch thread holds
    // its first batch until the consumer, finding its batch unwritten, writes one itself.
    IntConsumer bothWrite = i -> {
      boolean mine = Thread.currentThread().getName().equals(consumer);
      (mine ? consumerWrites : threadWrites).countDown();
      await(mine ? threadWrites : consumerWrites);
    };
    List<Integer> values;
    try (PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(recording(writers, bothWrite))) {
      values = firstValues(p, () -> {});
    }
    assertEquals(IntStream.range(0, 80).boxed().toList(), values);
    Set<String> threads = Set.copyOf(writers.values());
    assertEquals(Set.of(consumer, "minibatch-prefetch-0"), threads, "both write when the consumer would wait");
    assertEquals(0, prefetchThreads());
  }
}
