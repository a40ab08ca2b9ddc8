package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.example.ComputedProvider;
import dev.minibatch.runtime.io.csv.CsvProvider;
import dev.minibatch.runtime.pipeline.LiveVerdict;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.Tuning;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Autotuning ({@link Settings.Autotune}): the tuner climbs where readers pay (reads that sleep, as
 * on slow storage, scale with threads whatever the cores), stays at one reader where the consumer
 * sets the pace, keeps the ring within the memory budget, and never changes the batches.
 */
class AutotuneTest {
  @BeforeEach
  void quiet() {
    LiveVerdict.off();
  }

  @AfterEach
  void restore() {
    LiveVerdict.set(LiveVerdict.DEFAULT);
  }

  /** A read that waits 100 µs per sample and computes nothing, as slow storage does. */
  static float sleepy(int sample, int k) {
    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
    return sample * 10 + k;
  }

  private static ComputedProvider.Builder computed(ComputedProvider.Feature feature) {
    return ComputedProvider.builder().samples(2048, 4, feature).label(i -> i % 7).batchSize(16).shuffle(true).seed(11);
  }

  /** Runs epochs until the tuner settles (at most {@code seconds}), then returns the last epoch's tuning. */
  private static Tuning tuneUntilSettled(BatchProvider<NamedBatch> p, double seconds, long consumerMicros) {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    Tuning last = null;
    while (System.nanoTime() < end) {
      PipelineStats stats;
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          it.next();
          if (consumerMicros > 0) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(consumerMicros));
          }
        }
        stats = PipelineStats.of(it);
      }
      assertEquals(1, stats.tuning().size(), stats.toString());
      last = stats.tuning().get(0);
      if (last.settled()) {
        return last;
      }
    }
    throw new AssertionError("not settled within " + seconds + " s: " + last);
  }

  @Test
  void readsThatWaitGetEveryReaderTheBudgetAllows() {
    // One reader writes a batch of 16 in about 1.6 ms + the sleeps' slack; each added reader adds
    // as much again (sleeping takes no core), so every step up to the budget's 4 pays.
    try (ComputedProvider p = computed(AutotuneTest::sleepy).autotune(new Settings.Autotune(4, 1L << 30)).build()) {
      Tuning t = tuneUntilSettled(p, 30, 0);
      assertEquals(4, t.readers(), t.toString());
      assertTrue(t.trials() >= 3, t.toString());
      assertEquals(4, t.cpus());
      assertTrue(t.toString().startsWith("computed autotuned: readers 4, prefetchBuffer "), t.toString());
    }
  }

  @Test
  void aConsumerThatSetsThePaceLeavesOneReader() {
    // Rows take microseconds, the consumer 2 ms a batch: the consumer never waits, nothing to tune.
    try (ComputedProvider p = computed((i, k) -> i).autotune(new Settings.Autotune(4, 1L << 30)).build()) {
      Tuning t = tuneUntilSettled(p, 30, 2000);
      // On a loaded machine a window may see the consumer wait for a descheduled reader and try a
      // second one, which then does not pay: either way one reader stays.
      assertEquals(1, t.readers(), t.toString());
      assertEquals(2, t.prefetchBuffer(), t.toString());
    }
  }

  @Test
  void theBatchesAreTheSameWhateverTheTunerChooses() {
    List<float[]> tuned = new ArrayList<>();
    List<float[]> byHand = new ArrayList<>();
    try (ComputedProvider a = computed(AutotuneTest::sleepy).autotune(new Settings.Autotune(3, 1L << 30)).build();
        ComputedProvider b = computed((i, k) -> i * 10 + k).build()) {
      for (int epoch = 0; epoch < 3; epoch++) {
        collect(a, tuned);
        collect(b, byHand);
      }
    }
    assertEquals(3 * 2048 / 16, tuned.size());
    for (int j = 0; j < tuned.size(); j++) {
      assertArrayEquals(byHand.get(j), tuned.get(j), "batch " + j);
    }
  }

  private static void collect(BatchProvider<NamedBatch> p, List<float[]> out) {
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        NamedBatch b = it.next();
        float[] data = b.get("data").data().asFloat();
        float[] label = b.get("label").castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT).data().asFloat();
        float[] both = new float[data.length + label.length];
        System.arraycopy(data, 0, both, 0, data.length);
        System.arraycopy(label, 0, both, data.length, label.length);
        out.add(both);
      }
    }
  }

  @Test
  void theRingStaysWithinTheMemoryBudget() {
    // A batch of 16 rows: 16 x 4 float32 features + 16 int32 labels = 320 bytes. 1700 bytes hold 5
    // buffers: two the consumer may hold and 3 written ahead at most.
    try (ComputedProvider p = computed(AutotuneTest::sleepy).autotune(new Settings.Autotune(4, 1700)).build()) {
      Tuning t = tuneUntilSettled(p, 30, 0);
      assertEquals(5 * 320, t.bufferBytes(), t.toString());
      assertTrue(t.prefetchBuffer() <= 3, t.toString());
    }
    try (ComputedProvider p = computed(AutotuneTest::sleepy).autotune(new Settings.Autotune(4, 900)).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, p::iterator);
      assertEquals("ComputedProvider: autotune's memory budget of 900 bytes holds 2 batch buffers of 320 bytes, and"
          + " reader threads need at least 3: raise it to 960 bytes or more, or lower the batch size", e.getMessage());
    }
  }

  @Test
  void readersAndAutotuneAreOneChoice() {
    IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
        () -> computed((i, k) -> i).readers(2).autotune(new Settings.Autotune(2, 1 << 20)).build());
    assertEquals("autotune(cpus 2, memory 1048576 bytes) chooses the reader threads and the prefetch buffer, and"
        + " readers(2) is set too: set autotune or the readers, not both", both.getMessage());
    // A shared value's autotuning replaces what a builder set by hand before it, and the other way round.
    Settings tuned = Settings.builder().autotune(new Settings.Autotune(2, 1 << 20)).build();
    assertEquals(new Settings.Workers(0, 0, new Settings.Autotune(2, 1 << 20)),
        Settings.builder().readers(3).prefetchBuffer(4).apply(tuned).build().workers());
    assertEquals(new Settings.Workers(3, 0),
        tuned.toBuilder().apply(Settings.builder().readers(3).build()).build().workers());
    assertEquals(2, tuned.workers().mostReaders());
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
        () -> tuned.merge(Settings.builder().readers(2).build()));
    assertTrue(twice.getMessage().startsWith("autotune(cpus 2, memory 1048576 bytes) chooses the reader threads"),
        twice.getMessage());
    assertEquals("Settings[autotune(cpus 2, memory 1048576 bytes)]", tuned.toString());
  }

  @Test
  void csvRowsAreCopiedOnTheReadersItsSettingsAskFor(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("rows.csv");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 600; i++) {
      sb.append(i).append(',').append(2 * i).append(',').append(i % 3).append('\n');
    }
    Files.writeString(file, sb);
    try (CsvProvider byHand = CsvProvider.builder().dataFile(file).format(f -> f.labelColumn(2)).dataShape(2)
        .batchSize(50).readers(1).build();
        CsvProvider tuned = CsvProvider.builder().dataFile(file).format(f -> f.labelColumn(2)).dataShape(2)
            .batchSize(50).autotune().build()) {
      try (BatchIterator<NamedBatch> it = byHand.iterator()) {
        int rows = 0;
        while (it.hasNext()) {
          NamedBatch b = it.next();
          assertEquals(2.0 * (rows + 7), b.get("data").getDouble(7, 1), "row " + (rows + 7) + ", column 1");
          rows += 50;
        }
        assertEquals(600, rows);
        PipelineStats stats = PipelineStats.of(it);
        assertEquals("csv-reader", stats.stages().get(0).name(), stats.toString());
        assertTrue(stats.tuning().isEmpty(), stats.toString());
      }
      try (BatchIterator<NamedBatch> it = tuned.iterator()) {
        while (it.hasNext()) {
          it.next();
        }
        PipelineStats stats = PipelineStats.of(it);
        assertEquals("csv-reader", stats.tuning().get(0).stage(), stats.toString());
        assertFalse(stats.tuning().get(0).readers() < 1, stats.toString());
      }
    }
  }
}
