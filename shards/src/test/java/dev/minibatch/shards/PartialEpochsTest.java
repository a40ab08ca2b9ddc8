package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Epochs that read only some of the files, and the cache rule of docs/shards.md ("The cache"),
 * with read-ahead on (its default, 2 files). Set A holds ids 0..599 in 6 files of 100, set B ids
 * 10 000..10 299 in 6 files of 50 (x = [id, id] float32, y = id mod 7 int32). A set's stream is its
 * epochs one after the other, and a provider epoch takes the next {@code quota} samples of it, so
 * over epochs whose quotas add up to whole passes every sample comes exactly as often as the
 * passes (by hand from the quotas).
 */
class PartialEpochsTest {
  private static final int B0 = 10_000;
  @TempDir static Path dir;
  private static String a;
  private static String b;

  @BeforeAll
  static void write() {
    a = write("a", 0, 600, 100);
    b = write("b", B0, 300, 50);
  }

  private static String write(String name, int first, int n, int perFile) {
    return IdSamples.write(dir, name, first, n, perFile);
  }

  /** The ids of {@code epochs} epochs in order, each row's values checked against its id. */
  private static List<Integer> read(ShardProvider p, int epochs) {
    List<Integer> ids = new ArrayList<>();
    for (int e = 0; e < epochs; e++) {
      for (NamedBatch batch : p) {
        for (int r = 0; r < batch.countSamples(); r++) {
          int id = (int) batch.get("x").getFloat(r, 0);
          assertEquals(id, (int) batch.get("x").getFloat(r, 1), "sample " + id);
          assertEquals(id % 7, batch.get("y").getInt(r), "label of sample " + id);
          ids.add(id);
        }
      }
    }
    return ids;
  }

  /**
   * Reads {@code epochs} whole-set epochs and asserts that each loaded each of the {@code files}
   * files at most once (a file kept from the epoch before is not loaded again), the first all of
   * them. Read-ahead also loads the next epoch's first files at an epoch's end (at most its 2, for a
   * single set), counted in the epoch that loads them: in all, at most {@code files} loads an epoch
   * and those 2.
   */
  private static List<Integer> readLoadingEachFileOnce(ShardProvider p, int epochs, int files) {
    List<Integer> ids = new ArrayList<>();
    for (int e = 0; e < epochs; e++) {
      ids.addAll(read(p, 1));
      if (e == 0) {
        assertTrue(p.fileLoads() >= files, "loads in epoch 0: " + p.fileLoads() + ", fewer than the " + files + " files");
      }
    }
    try {
      assertTrue(ReadAheadThreads.awaitNone().isEmpty(), "read-ahead threads after the epochs");
    } catch (InterruptedException ex) {
      throw new AssertionError(ex);
    }
    assertTrue(p.fileLoads() <= files * epochs + 2, p.fileLoads() + " loads in " + epochs + " epochs of " + files
        + " files: a file was loaded twice in an epoch");
    return ids;
  }

  /** Asserts every id of A came {@code passesA} times and every id of B {@code passesB} times. */
  private static void eachSample(List<Integer> ids, int passesA, int passesB) {
    int[] count = new int[B0 + 300];
    for (int id : ids) {
      count[id]++;
    }
    for (int id = 0; id < 600; id++) {
      assertEquals(passesA, count[id], "sample " + id + " of A");
    }
    for (int id = B0; id < B0 + 300; id++) {
      assertEquals(passesB, count[id], "sample " + id + " of B");
    }
    assertEquals(600 * passesA + 300 * passesB, ids.size());
  }

  private static ShardProvider mix(Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder p = ShardProvider.mix().source(a, 1).source(b, 1).batchSize(30);
    settings.accept(p);
    return p.build();
  }

  private static ShardProvider single(Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder p = ShardProvider.builder(a).batchSize(30);
    settings.accept(p);
    return p.build();
  }

  @Test
  void anUnshuffledMixReadsEachSetsStreamInOrder() {
    // Equal weights over 900 samples: 450 from each set per epoch; A's stream is 0..599 again and
    // again, so epoch 0 leaves A's file 5 unread.
    try (ShardProvider p = mix(s -> {})) {
      List<Integer> ids = read(p, 4);
      eachSample(ids, 3, 6);
      List<Integer> fromA = ids.stream().filter(id -> id < B0).toList();
      for (int i = 0; i < fromA.size(); i++) {
        assertEquals(i % 600, fromA.get(i), "A's stream position " + i);
      }
    }
  }

  @Test
  void aShuffledMixWithAWindowSmallerThanASet() {
    try (ShardProvider p = mix(s -> s.shuffle(true).seed(11).shuffleWindow(80))) {
      eachSample(read(p, 4), 3, 6);
    }
  }

  @Test
  void anUnshuffledSetReadInPartialEpochs() {
    try (ShardProvider p = single(s -> s.samplesPerEpoch(250))) {
      List<Integer> ids = read(p, 12);
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(i % 600, ids.get(i), "position " + i);
      }
      eachSample(ids, 5, 0);
    }
  }

  @Test
  void aShuffledSetReadInPartialEpochs() {
    try (ShardProvider p = single(s -> s.samplesPerEpoch(250).shuffle(true).seed(3).shuffleWindow(150))) {
      eachSample(read(p, 12), 5, 0);
    }
  }

  @Test
  void aWeightedShuffledMixInPartialEpochsOnReaderThreads() {
    // 450 a epoch at weights 2:1: 300 from A, 150 from B; six epochs are three passes of each.
    try (ShardProvider p = ShardProvider.mix().source(a, 2).source(b, 1).batchSize(30).samplesPerEpoch(450)
        .shuffle(true).seed(5).shuffleWindow(120).readers(2).build()) {
      eachSample(read(p, 6), 3, 3);
    }
  }

  @Test
  void aCacheAtTheWindowsSpanLoadsEachFileOncePerEpoch() {
    // A window of 200 positions over files of 100 starts at a file boundary and spans two files.
    try (ShardProvider p = single(s -> s.shuffle(true).seed(7).shuffleWindow(200).cacheFiles(2))) {
      eachSample(readLoadingEachFileOnce(p, 3, 6), 3, 0);
    }
  }

  @Test
  void aCacheAtTheSpanOfUnalignedWindowsLoadsEachFileOncePerEpoch() {
    // A window of 150 positions can touch 3 files of 100 (1 + 100 + 49 samples).
    try (ShardProvider p = single(s -> s.shuffle(true).seed(7).shuffleWindow(150).cacheFiles(3))) {
      eachSample(readLoadingEachFileOnce(p, 3, 6), 3, 0);
    }
  }

  @Test
  void aMixAtItsSmallestCacheLoadsEachFileOncePerEpoch() {
    // Windows of 100: one file of A and two of B, read at the same time.
    try (ShardProvider p = ShardProvider.mix().source(a, 2).source(b, 1).batchSize(30).shuffle(true).seed(9)
        .shuffleWindow(100).cacheFiles(3).build()) {
      eachSample(readLoadingEachFileOnce(p, 3, 12), 3, 3);
    }
  }

  @Test
  void readerThreadsAtTheirSmallestCacheLoadEachFileOncePerEpoch() {
    // Two readers write two batches of 30 at once, which can straddle two windows of 200: 400
    // positions from a window boundary, four files.
    try (ShardProvider p = single(s -> s.shuffle(true).seed(7).shuffleWindow(200).readers(2).cacheFiles(4))) {
      eachSample(readLoadingEachFileOnce(p, 3, 6), 3, 0);
    }
  }

  @Test
  void rowsRolledOverIntoAnEpochLoadEachFileOncePerEpoch() {
    // Batches of 64 over 600 samples: rows roll over into each next epoch and are written first
    // there (not where their batch is in the new epoch's order: that write counts from the epoch's
    // start, FileNeedsTest), while read-ahead has loaded the new epoch's first files.
    try (ShardProvider p = single(s -> s.batchSize(64).lastBatch(dev.minibatch.LastBatch.ROLL_OVER).shuffle(true)
        .seed(3).shuffleWindow(100).cacheFiles(3))) {
      List<Integer> ids = readLoadingEachFileOnce(p, 4, 6);
      // 4 epochs of 600 draws cut into batches of 64: 37 batches, 32 samples left over.
      assertEquals(37 * 64, ids.size());
    }
  }

  @Test
  void theDefaultCacheLoadsEachFileOncePerEpoch() {
    try (ShardProvider p = single(s -> s.shuffle(true).seed(1).shuffleWindow(130))) {
      eachSample(readLoadingEachFileOnce(p, 4, 6), 4, 0);
    }
    try (ShardProvider p = ShardProvider.mix().source(a, 2).source(b, 1).batchSize(30).shuffle(true).seed(1)
        .shuffleWindow(70).readers(2).build()) {
      eachSample(readLoadingEachFileOnce(p, 3, 12), 3, 3);
    }
  }

  @Test
  void aCacheSmallerThanAWindowIsRefusedWithTheSmallestThatWorks() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> single(s -> s.shuffle(true).shuffleWindow(200).cacheFiles(1)));
    assertTrue(e.getMessage().contains("cacheFiles(1) is too small"), e.getMessage());
    assertTrue(e.getMessage().contains("the smallest cache that works is 2"), e.getMessage());
    assertTrue(e.getMessage().contains(Path.of(a).toUri().getPath().replaceAll("/$", "")), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> single(s -> s.shuffle(true).shuffleWindow(150).cacheFiles(2)));
    assertTrue(e.getMessage().contains("the smallest cache that works is 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> mix(s -> s.shuffle(true).shuffleWindow(100).cacheFiles(2)));
    assertTrue(e.getMessage().contains("the smallest cache that works is 3"), e.getMessage());
    // Without shuffle one file per set is read at a time.
    try (ShardProvider p = mix(s -> s.cacheFiles(2))) {
      eachSample(read(p, 4), 3, 6);
    }
  }
}
