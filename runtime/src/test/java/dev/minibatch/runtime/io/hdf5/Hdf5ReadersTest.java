package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.io.SampleProcessor;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import dev.minibatch.runtime.io.SampleProcessor.SampleException;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reader threads, process and delivery functions, and multicast. The two chunked test files hold
 * 7 samples of shape (5, 3) in {@code float/float32}: sample r is {@code 15 r + arange(15)}.
 */
class Hdf5ReadersTest {
  private static final String X = "float/float32";

  private static Hdf5Provider.Builder twoFiles() {
    return Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of(X), "latest")
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of(X), "earliest");
  }

  /** Every batch of one epoch, copied, with its sample indices. */
  private static List<NamedBatch> epoch(Hdf5Provider p) {
    List<NamedBatch> out = new ArrayList<>();
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        out.add(it.next().copy());
      }
    }
    return out;
  }

  private static void assertSameBatches(List<NamedBatch> expected, List<NamedBatch> actual) {
    assertEquals(expected.size(), actual.size());
    for (int b = 0; b < expected.size(); b++) {
      assertArrayEquals(expected.get(b).sampleIndices(), actual.get(b).sampleIndices(), "batch " + b);
      for (String name : expected.get(b).names()) {
        assertEquals(expected.get(b).get(name), actual.get(b).get(name), "batch " + b + " '" + name + "'");
      }
    }
  }

  /** The minibatch threads alive now, except the runtime-wide cleaner. */
  private static Set<Thread> minibatchThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("minibatch-")
            && !t.getName().equals("minibatch-cleaner"))
        .collect(Collectors.toSet());
  }

  /** Waits (by joining, asking for garbage collection between joins) until only {@code before} are alive. */
  private static Set<Thread> awaitOnly(Set<Thread> before, boolean collect) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      Set<Thread> extra = minibatchThreads();
      extra.removeAll(before);
      if (extra.isEmpty() || System.nanoTime() > deadline) {
        return extra;
      }
      if (collect) {
        System.gc();
      }
      for (Thread t : extra) {
        t.join(50);
      }
    }
  }

  @Test
  @Timeout(60)
  void readersFillTheSameBatchesAsTheConsumerThreadForEveryOrder() {
    List<UnaryOperator<Hdf5Provider.Builder>> orders = List.of(
        b -> b,
        b -> b.shuffle(true).seed(11).lastBatch(LastBatch.PAD_WRAP),
        b -> b.shuffle(true).seed(5).lastBatch(LastBatch.PAD_CONSTANT).dataPadding(-1),
        b -> Hdf5Provider.builder()
            .add(Hdf5ReaderTest.CHUNKED, List.of(X), "latest", 0.3)
            .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of(X), "earliest", 0.7)
            .shuffle(true).seed(3));
    for (UnaryOperator<Hdf5Provider.Builder> order : orders) {
      try (Hdf5Provider plain = order.apply(twoFiles()).batchSize(4).build()) {
        List<List<NamedBatch>> expected = List.of(epoch(plain), epoch(plain));
        for (int readers = 1; readers <= 3; readers++) {
          try (Hdf5Provider threaded = order.apply(twoFiles()).batchSize(4).readers(readers).build()) {
            assertSameBatches(expected.get(0), epoch(threaded));
            assertSameBatches(expected.get(1), epoch(threaded));
          }
        }
      }
    }
  }

  /**
   * A process function's draws are seeded by the row's position in the epoch (SampleProcessor):
   * under elastic parts that is its position in the global order, so part {@code p} of {@code k}
   * gets global batch {@code p + b k} with the very values one provider over everything makes,
   * for any {@code k} (a position counted in the part's own batches would draw other values).
   */
  @Test
  @Timeout(60)
  void aProcessFunctionDrawsTheSameValuesUnderAnyNumberOfElasticParts() {
    SampleProcessor offset = (s, context) -> {
      INDArray x = s.get(X).dup();
      x.putScalar(0, 0, x.getDouble(0, 0) + 1000 * context.random().nextInt(1, 1000));
      return new Sample(s.index(), s.names(), List.of(x, s.arrays().get(1)));
    };
    List<NamedBatch> whole;
    try (Hdf5Provider p = twoFiles().batchSize(2).shuffle(true).seed(9).process(offset).build()) {
      whole = epoch(p);
    }
    assertEquals(7, whole.size(), "14 samples in batches of 2");
    for (int k : new int[] {2, 3}) {
      for (int part = 0; part < k; part++) {
        List<NamedBatch> expected = new ArrayList<>();
        for (int j = part; j < whole.size(); j += k) {
          expected.add(whole.get(j));
        }
        try (Hdf5Provider p = twoFiles().batchSize(2).shuffle(true).seed(9).process(offset)
            .shard(k, part).elasticShards(true).build()) {
          assertSameBatches(expected, epoch(p));
        }
      }
    }
  }

  @Test
  @Timeout(60)
  void processRunsOnReadersAndDeliveryOnTheConsumerWithTheSameBatchesForAnyNumberOfReaders() {
    Set<String> processThreads = ConcurrentHashMap.newKeySet();
    Set<String> deliveryThreads = ConcurrentHashMap.newKeySet();
    List<List<NamedBatch>> results = new ArrayList<>();
    for (int readers = 1; readers <= 4; readers++) {
      try (Hdf5Provider p = twoFiles().batchSize(5).shuffle(true).seed(42)
          .process((s, context) -> {
            processThreads.add(Thread.currentThread().getName());
            // Doubled, plus a random offset drawn from the context on element (0, 0) only.
            INDArray x = s.get(X).mul(2);
            x.putScalar(0, 0, x.getDouble(0, 0) + 1000 * context.random().nextInt(1, 100));
            return new Sample(s.index(), s.names(), List.of(x, s.arrays().get(1)));
          })
          .process("earliest", (s, context) -> new Sample(s.index(), s.names(), List.of(s.arrays().get(0).neg(),
              s.arrays().get(1))))
          .delivery(b -> deliveryThreads.add(Thread.currentThread().getName()))
          .readers(readers).build()) {
        List<NamedBatch> batches = epoch(p);
        results.add(batches);
        int seen = 0;
        for (NamedBatch b : batches) {
          for (int r = 0; r < b.countSamples(); r++, seen++) {
            int sample = (int) b.sampleIndex(r);
            int fileRow = sample % 7;
            double sign = sample < 7 ? 1 : -1;
            // Element (1, 1) is 15 r + 4, doubled, negated for class "earliest".
            assertEquals(sign * 2 * (15 * fileRow + 4), b.get(X).getDouble(r, 1, 1), 0.0);
            double offset = sign * b.get(X).getDouble(r, 0, 0) - 2 * 15 * fileRow;
            assertTrue(offset >= 1000 && offset < 100_000 && offset % 1000 == 0, "offset " + offset);
            assertEquals(sample < 7 ? 0 : 1, b.get("softmax_label").getDouble(r), 0.0);
          }
        }
        assertEquals(14, seen);
      }
    }
    for (int i = 1; i < results.size(); i++) {
      assertSameBatches(results.get(0), results.get(i));
    }
    assertEquals(Set.of(Thread.currentThread().getName()), deliveryThreads);
    assertFalse(processThreads.isEmpty());
    assertTrue(processThreads.stream().allMatch(n -> n.startsWith("minibatch-hdf5-reader-")), processThreads.toString());
  }

  @Test
  @Timeout(60)
  void deliveryMayChangeTheBatchInPlaceWithoutReaders() {
    try (Hdf5Provider p = twoFiles().batchSize(7).delivery(b -> b.get(X).muli(-1)).build()) {
      NamedBatch b = p.iterator().next();
      for (int r = 0; r < 7; r++) {
        assertEquals(-(15.0 * r + 14), b.get(X).getDouble(r, 4, 2), 0.0);
      }
    }
  }

  @Test
  @Timeout(60)
  void aFailingProcessReachesTheConsumerNamingStageFileDatasetAndSample() {
    IllegalStateException original = new IllegalStateException("bad sample");
    try (Hdf5Provider p = twoFiles().batchSize(4).readers(2)
        .process("earliest", (s, context) -> {
          if (s.get(X).getDouble(0, 0) == 45) {
            throw original;
          }
          return s;
        }).build()) {
      BatchIterator<NamedBatch> it = p.iterator();
      StageFailedException e = assertThrows(StageFailedException.class, () -> {
        while (it.hasNext()) {
          it.next();
        }
      });
      assertEquals("hdf5-reader process", e.stage());
      // Sample 10 is row 3 (15 * 3 = 45) of the second file.
      assertEquals(10, e.sampleIndex());
      SampleException cause = (SampleException) e.getCause();
      assertEquals(10, cause.sampleIndex());
      assertTrue(cause.getMessage().contains("file " + Hdf5ReaderTest.CHUNKED_EARLIEST + ", datasets [" + X + "], row 3"),
          cause.getMessage());
      assertSame(original, cause.getCause());
      assertTrue(e.getMessage().contains("row 3"), e.getMessage());
      it.close();
    }
  }

  @Test
  @Timeout(60)
  void aProcessedSampleOfTheWrongShapeNamesBothShapes() {
    try (Hdf5Provider p = twoFiles().batchSize(4).readers(1)
        .process((s, context) -> new Sample(s.index(), s.names(), List.of(s.get(X).reshape(15), s.arrays().get(1))))
        .build()) {
      StageFailedException e = assertThrows(StageFailedException.class, () -> p.iterator().next());
      String message = e.getCause().getCause().getMessage();
      assertTrue(message.contains("[15]") && message.contains("[5, 3]"), message);
      assertTrue(e.getCause().getMessage().contains("row 0"), e.getCause().getMessage());
    }
  }

  @Test
  @Timeout(60)
  void closingOrDroppingAnEpochOrTheProviderStopsTheReaders() throws InterruptedException {
    Set<Thread> before = minibatchThreads();
    try (Hdf5Provider p = twoFiles().batchSize(2).readers(3).prefetchBuffer(1).build()) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      assertEquals(3, readerThreads(before));
      it.close();
      assertEquals(Set.of(), awaitOnly(before, false));

      dropAfterOneBatch(p);
      assertEquals(Set.of(), awaitOnly(before, true));

      // A new epoch supersedes (and stops) the previous one; closing the provider stops the last.
      BatchIterator<NamedBatch> first = p.iterator();
      first.next();
      BatchIterator<NamedBatch> second = p.iterator();
      second.next();
      assertEquals(3, readerThreads(before));
      assertThrows(IllegalStateException.class, first::hasNext);
    }
    assertEquals(Set.of(), awaitOnly(before, false));
  }

  /** Iterates like a for-each loop that breaks after its first batch. */
  private static void dropAfterOneBatch(Hdf5Provider p) {
    for (NamedBatch b : p) {
      assertEquals(2, b.countSamples());
      break;
    }
  }

  /**
   * The number of live reader threads not in {@code before}. Writing one batch ahead, the readers
   * cannot finish a 7-batch epoch while the consumer holds its first batch, so all are still alive.
   */
  private static int readerThreads(Set<Thread> before) {
    Set<Thread> extra = minibatchThreads();
    extra.removeAll(before);
    return (int) extra.stream().filter(t -> t.getName().startsWith("minibatch-hdf5-reader-")).count();
  }

  @Test
  @Timeout(60)
  void multicastGivesEveryConsumerEveryBatchOnceAndReusesABufferOnlyAfterAllReleasedIt() throws Exception {
    int consumers = 3;
    try (Hdf5Provider p = twoFiles().batchSize(3).readers(2).prefetchBuffer(1).build()) {
      Multicast<NamedBatch> m = p.multicast(consumers);
      CyclicBarrier together = new CyclicBarrier(consumers);
      ExecutorService pool = Executors.newFixedThreadPool(consumers);
      try {
        List<Future<List<Double>>> seen = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
          PipelineIterator<NamedBatch> it = m.consumer(c);
          seen.add(pool.submit(() -> {
            List<Double> firsts = new ArrayList<>();
            try (it) {
              while (it.hasNext()) {
                NamedBatch b = it.next();
                double[] before = b.get(X).ravel().toDoubleVector();
                // Every consumer holds this batch while the readers run ahead into the free buffers.
                together.await(20, TimeUnit.SECONDS);
                assertArrayEquals(before, b.get(X).ravel().toDoubleVector());
                for (int r = 0; r < b.countSamples(); r++) {
                  int sample = (int) b.sampleIndex(r);
                  assertEquals(15.0 * (sample % 7), b.get(X).getDouble(r, 0, 0), 0.0);
                  firsts.add(b.get(X).getDouble(r, 0, 0));
                }
                together.await(20, TimeUnit.SECONDS);
              }
            }
            return firsts;
          }));
        }
        List<Double> expected = new ArrayList<>();
        for (int s = 0; s < 14; s++) {
          expected.add(15.0 * (s % 7));
        }
        for (Future<List<Double>> f : seen) {
          assertEquals(expected, f.get(30, TimeUnit.SECONDS));
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
