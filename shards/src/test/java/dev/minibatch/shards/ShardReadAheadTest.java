package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.IndexedSamples;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The read-ahead thread ({@code minibatch-shard-read-ahead-0}) runs while there are files to read
 * ahead, not for as long as the provider is open: an epoch left half-read leaves no thread waiting
 * (the provider contract's rule for every provider's threads). 30 samples of {@link IndexedSamples}
 * in files of 3, batches of 3.
 */
class ShardReadAheadTest {
  private static final String THREAD = "minibatch-shard-read-ahead-";

  @TempDir static Path dir;
  private static String set;

  @BeforeAll
  static void write() {
    set = dir.resolve("set").toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder()
        .data("data", Nd4j.create(IndexedSamples.data(0, 30)))
        .label("softmax_label", Nd4j.createFromArray(IndexedSamples.labels(0, 30)))
        .batchSize(8).build()) {
      ShardWriter.builder().samplesPerFile(3).build().write(source, set);
    }
  }

  private static List<Thread> readAheadThreads() {
    List<Thread> out = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith(THREAD)) {
        out.add(t);
      }
    }
    return out;
  }

  /** The read-ahead threads still alive after joining them for up to 2 s in all. */
  private static List<Thread> awaitNoReadAhead() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    for (Thread t : readAheadThreads()) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    return readAheadThreads();
  }

  @Test
  void aHalfReadEpochLeavesNoReadAheadThreadWhileTheProviderIsOpen() throws InterruptedException {
    assertTrue(awaitNoReadAhead().isEmpty(), "a read-ahead thread of another test still runs");
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).build()) {
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        NamedBatch b = it.next();
        assertTrue(IndexedSamples.holds(b, 0, 0), "the first row holds sample 0");
        // The first batch asked for files 1 and 2 ahead; a thread read them.
        assertTrue(p.fileLoads() >= 1, "loads " + p.fileLoads());
      }
      List<Thread> alive = awaitNoReadAhead();
      assertTrue(alive.isEmpty(), "read-ahead threads 2 s after the epoch was left, the provider still open: " + alive);
      // A new epoch reads ahead again, on a new thread, and gets every sample.
      List<Long> samples = new ArrayList<>();
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          NamedBatch b = it.next();
          for (int r = 0; r < b.rows(); r++) {
            assertTrue(IndexedSamples.holds(b, r, b.sampleIndex(r)), "row " + r + ", sample " + b.sampleIndex(r));
            samples.add(b.sampleIndex(r));
          }
        }
      }
      assertEquals(30, samples.size());
      for (int i = 0; i < 30; i++) {
        assertEquals(i, samples.get(i), "position " + i);
      }
    }
    assertTrue(awaitNoReadAhead().isEmpty(), "a read-ahead thread after close()");
  }
}
