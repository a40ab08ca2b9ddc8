package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The read-ahead thread ({@code minibatch-shard-read-ahead-0}) runs while there are files to read
 * ahead, not for as long as the provider is open: an epoch left half-read leaves no thread waiting
 * (the provider contract's rule for every provider's threads). It is a stage of the epoch's stats
 * ({@code shard-read-ahead}): files loaded, time loading them, time batches waited for them. 30
 * samples of {@link IndexedSamples} in 10 files of 3, batches of 3.
 */
class ShardReadAheadTest {
  private static final String THREAD = ReadAheadThreads.PREFIX;

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

  @Test
  void aHalfReadEpochLeavesNoReadAheadThreadWhileTheProviderIsOpen() throws InterruptedException {
    assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "a read-ahead thread of another test still runs");
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).build()) {
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        NamedBatch b = it.next();
        assertTrue(IndexedSamples.holds(b, 0, 0), "the first row holds sample 0");
        // The first batch asked for files 1 and 2 ahead; a thread read them.
        assertTrue(p.fileLoads() >= 1, "loads " + p.fileLoads());
      }
      List<Thread> alive = ReadAheadThreads.awaitNone();
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
    assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "a read-ahead thread after close()");
  }

  private static final String STAGE = "shard-read-ahead";
  private static final long MS = 1_000_000;

  /** Reads one epoch of {@code p} to its end; its stats. */
  private static PipelineStats epoch(ShardProvider p) {
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      return PipelineStats.of(it);
    }
  }

  private static List<String> names(PipelineStats stats) {
    return stats.stages().stream().map(StageStats::name).toList();
  }

  @Test
  void theEpochsStatsCountEveryFileTheEpochLoadedAsTheReadAheadStagesItems() {
    // Read in order with read-ahead 2: each of the 10 files loads once in the epoch (the default cache
    // holds all 10 of this small set, so the next epoch's first files, read ahead at its end, are
    // still there).
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).readAhead(2).build()) {
      PipelineStats stats = epoch(p);
      assertEquals(List.of(STAGE, "ShardProvider"), names(stats), stats.summary());
      StageStats s = stats.stages().get(0);
      assertEquals(10, s.items(), stats.summary());
      assertEquals(1, s.workers());
      assertEquals(10, p.fileLoads());
      assertTrue(s.busyNanos() > 0, stats.summary());
    }
    // A cache of all 10 files keeps them: the second epoch loads none, and its stats say so (they count
    // per epoch, not over the provider's life); all 10 are held at its end.
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).readAhead(2).cacheFiles(10).build()) {
      StageStats first = epoch(p).stage(STAGE).orElseThrow();
      StageStats second = epoch(p).stage(STAGE).orElseThrow();
      assertEquals(10, first.items());
      assertEquals(0, second.items());
      assertEquals(0, second.busyNanos());
      assertEquals(0, second.consumerWaitNanos());
      assertEquals(10, second.queueDepth());
      assertEquals(10, second.queueCapacity());
      assertEquals(10, p.fileLoads());
    }
    // With reader threads the read-ahead comes first, then the readers, then the provider's own stage.
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).readAhead(2).readers(2).build()) {
      PipelineStats stats = epoch(p);
      assertEquals(List.of(STAGE, "shard-reader", "ShardProvider"), names(stats), stats.summary());
      assertEquals(10, stats.stages().get(0).items(), stats.summary());
    }
  }

  /**
   * The next epoch's first files are read ahead while an epoch ends (MixOrder#firstFiles), so its
   * first batch waits for none: file 0 takes 30 ms to open, a cache of 4 has dropped files 0 and 1
   * by the epoch's end; the read-ahead thread opens file 0 again before the second epoch begins (10
   * + 2 loads), and that epoch's first batch opens nothing.
   */
  @Test
  void theNextEpochsFirstFilesAreReadAheadSoItsFirstBatchWaitsForNone() throws InterruptedException {
    assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "a read-ahead thread of another test still runs");
    try (ShardProvider p = ShardProvider.builder("slowfs://" + set)
        .configuration(SlowFileSystem.conf("part-00000", 30)).batchSize(3).readAhead(2).cacheFiles(4).build()) {
      // The epoch's 10 files and the next epoch's first 2 (file 1 may still be held when asked for).
      epochThenNextsFirstBatchOpensNothing(p, 11, 12, 0, true);
      assertTrue(ReadAheadThreads.awaitNone().isEmpty());
      // Files 8 and 9, read again at this epoch's end, stay in the cache: files 2-7 load, then the
      // next epoch's first 2 again; never a file twice in the epoch.
      assertTrue(p.fileLoads() >= 17 && p.fileLoads() <= 20, p.fileLoads() + " loads");
    }
    // A trainer's last epoch reads no more than the next epoch's first files, at most readAhead:
    // readAhead(0) reads none.
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).readAhead(0).cacheFiles(1).build()) {
      epoch(p);
      assertTrue(ReadAheadThreads.awaitNone().isEmpty());
      assertEquals(10, p.fileLoads());
    }
  }

  /**
   * A part cut from the epoch's positions ({@code elasticShards(false)}) starts its next epoch at its
   * own block, not at the set's first files: part 1 of 2 reads samples 15-29 (files 5-9), and at an
   * epoch's end reads files 5 and 6 ahead (file 5 takes 30 ms to open), never 0 or 1.
   */
  @Test
  void aPartReadsAheadTheFilesItsOwnNextEpochStartsWith() throws InterruptedException {
    assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "a read-ahead thread of another test still runs");
    try (ShardProvider p = ShardProvider.builder("slowfs://" + set)
        .configuration(SlowFileSystem.conf("part-00005", 30)).batchSize(3).readAhead(2).cacheFiles(3)
        .shard(2, 1).elasticShards(false).build()) {
      // Files 5-9, then 5 and (unless it is still held) 6 again for the next epoch.
      epochThenNextsFirstBatchOpensNothing(p, 5 + 1, 5 + 2, 15, false);
    }
  }

  /**
   * Reads an epoch of {@code p}, whose slow file is its next epoch's first; once the read-ahead is
   * done, asserts the loads so far (from {@code least} to {@code most}) and that the read-ahead
   * thread opened the slow file last,
   * then that the next epoch's first batch (first row: sample {@code first}) opened it on no other
   * thread; reads that epoch to its end if {@code whole}.
   */
  private static void epochThenNextsFirstBatchOpensNothing(ShardProvider p, int least, int most, long first,
      boolean whole) throws InterruptedException {
    epoch(p);
    assertTrue(ReadAheadThreads.awaitNone().isEmpty());
    assertTrue(p.fileLoads() >= least && p.fileLoads() <= most, p.fileLoads() + " loads");
    assertTrue(SlowFileSystem.openedBy.startsWith(THREAD), "the slow file last opened by " + SlowFileSystem.openedBy);
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      assertTrue(IndexedSamples.holds(it.next(), 0, first), "the next epoch's first row holds sample " + first);
      assertTrue(SlowFileSystem.openedBy.startsWith(THREAD), "the next epoch's first batch opened the slow file on "
          + SlowFileSystem.openedBy);
      while (whole && it.hasNext()) {
        it.next();
      }
    }
  }

  @Test
  void batchesThatWaitForSlowFilesShowTheWaitAndTheReadAheadAsTheBottleneck() throws InterruptedException {
    assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "a read-ahead thread of another test still runs");
    // Every shard file takes 30 ms to open: 10 loads take 300 ms at least, and the first batch waits
    // at least 30 ms for file 0, which no one can have read ahead.
    try (ShardProvider p = ShardProvider.builder("slowfs://" + set).configuration(SlowFileSystem.conf("part-", 30))
        .batchSize(3).readAhead(2).build()) {
      PipelineStats stats = epoch(p);
      StageStats s = stats.stage(STAGE).orElseThrow();
      assertEquals(10, s.items(), stats.summary());
      assertTrue(s.busyNanos() >= 300 * MS, stats.summary());
      assertTrue(s.consumerWaitNanos() >= 30 * MS, stats.summary());
      // The consumer's thread spent its time waiting for files, not making batches.
      assertEquals(STAGE, stats.bottleneck(), stats.summary());
    }
    assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "a read-ahead thread after close()");
  }

  /** A cache over the set read through {@code slowfs}, file 1 taking 300 ms to open; runs {@code test}. */
  private static void withSlowFileOne(CacheTest test) throws InterruptedException {
    ShardStore store = ShardStore.open("slowfs://" + set, SlowFileSystem.conf("part-00001", 300));
    try {
      ShardIndex index = ShardIndex.read(store);
      ShardFiles files = new ShardFiles(List.of(store), List.of(index));
      assertEquals("part-00001.parquet", files.entry(1).name());
      MixOrder order = new MixOrder(List.of(index), new double[] {1}, -1, false, 0, 65_536);
      FileNeeds needs = new FileNeeds(order, files, 1, 1, 0, 0, -1);
      needs.epoch(0, 0, 0);
      try (ShardCache cache = new ShardCache(files, 4, needs, null)) {
        test.run(cache);
      }
    } finally {
      store.close();
    }
  }

  private interface CacheTest {
    void run(ShardCache cache) throws InterruptedException;
  }

  @Test
  void aBatchThatNeedsAFileTheReadAheadIsLoadingWaitsAndTheWaitIsCounted() throws InterruptedException {
    withSlowFileOne(cache -> {
      SlowFileSystem.opening = new CountDownLatch(1);
      cache.prefetch(1);
      assertTrue(SlowFileSystem.opening.await(10, TimeUnit.SECONDS), "file 1 is not being read");
      assertTrue(SlowFileSystem.openedBy.startsWith(THREAD), SlowFileSystem.openedBy);
      // The read-ahead thread is inside the 300 ms open of file 1: get(1) waits for that load.
      long t0 = System.nanoTime();
      assertNotNull(cache.get(1));
      long took = System.nanoTime() - t0;
      StageStats s = cache.counters().snapshot();
      assertEquals(1, s.items());
      assertEquals(1, cache.loads());
      assertTrue(s.busyNanos() >= 300 * MS, s.toString());
      assertTrue(s.consumerWaitNanos() >= 150 * MS && s.consumerWaitNanos() <= took,
          "waited " + s.consumerWaitNanos() / MS + " ms of " + took / MS + " ms in get()");
    });
  }

  @Test
  void aBatchThatLoadsAFileItselfCountsTheLoadAsItsWait() throws InterruptedException {
    withSlowFileOne(cache -> {
      SlowFileSystem.opening = new CountDownLatch(1);
      assertNotNull(cache.get(1));
      assertEquals(Thread.currentThread().getName(), SlowFileSystem.openedBy);
      StageStats s = cache.counters().snapshot();
      assertEquals(1, s.items());
      assertTrue(s.busyNanos() >= 300 * MS, s.toString());
      assertTrue(s.consumerWaitNanos() >= 300 * MS, s.toString());
    });
  }

  @Test
  void aFileReadAheadInTimeCostsTheBatchNoWait() throws InterruptedException {
    withSlowFileOne(cache -> {
      cache.prefetch(2);
      // The read-ahead thread ends once the files asked for are loaded: join it.
      assertEquals(List.of(), ReadAheadThreads.awaitNone());
      assertNotNull(cache.loaded(2), "file 2 is loaded ahead");
      assertNotNull(cache.get(2));
      StageStats s = cache.counters().snapshot();
      assertEquals(1, s.items());
      assertTrue(s.busyNanos() > 0, s.toString());
      assertEquals(0, s.consumerWaitNanos(), s.toString());
    });
  }
}
