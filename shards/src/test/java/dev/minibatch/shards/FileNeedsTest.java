package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.spi.EpochDraws;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Where a write is in its epoch ({@link FileNeeds.EpochUse#position}): the batch gives its epoch
 * position, which the engine's plan counts with the rows carried in (ROLL_OVER) or without those
 * padded out of the last epoch (PAD_CONTINUE), so the row is within a batch of it in the epoch's
 * draws; a row further off is not this epoch's. 20 samples in 5 files of 4; the draws written out
 * by hand.
 */
class FileNeedsTest {
  @TempDir static Path dir;
  private static ShardStore store;
  private static ShardFiles files;

  @BeforeAll
  static void write() {
    String set = dir.resolve("set").toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.rand(20, 2)).batchSize(20).build()) {
      ShardWriter.builder().samplesPerFile(4).build().write(source, set);
    }
    store = ShardStore.open(set, new Configuration());
    files = new ShardFiles(List.of(store), List.of(ShardIndex.read(store)));
  }

  @AfterAll
  static void close() {
    store.close();
  }

  /** Fixed draws for every epoch. */
  private static EpochDraws drawing(int... draws) {
    return new EpochDraws() {
      @Override
      public int length() {
        return draws.length;
      }

      @Override
      public long seed() {
        return 0;
      }

      @Override
      public EpochDraws reseeded(long seed) {
        return this;
      }

      @Override
      public void fill(int epoch, int[] out) {
        System.arraycopy(draws, 0, out, 0, draws.length);
      }
    };
  }

  // A permutation of the 20 samples: files 3, 0, 4, 1, 2 in windows.
  private static final int[] PERMUTATION = {13, 0, 12, 3, 15, 14, 1, 2, 16, 19, 5, 18, 17, 7, 4, 6, 9, 11, 8, 10};

  @Test
  void aRowIsFoundWithinABatchOfItsBatchsPosition() {
    FileNeeds needs = new FileNeeds(drawing(PERMUTATION), files, 2, 1, 4, 0, 0);
    FileNeeds.EpochUse use = needs.epoch(0, 13, 0);
    for (int p = 0; p < PERMUTATION.length; p++) {
      int sample = PERMUTATION[p];
      for (int off = -4; off <= 4; off++) {
        assertEquals(p, use.position(sample, p + off), "sample " + sample + " with its batch at " + (p + off));
      }
      // Further than a batch from where its batch is, a row is not this epoch's (one carried in).
      if (p >= 5) {
        assertEquals(-1, use.position(sample, p - 5), "sample " + sample + " counted 5 early");
      }
      if (p + 5 < PERMUTATION.length) {
        assertEquals(-1, use.position(sample, p + 5), "sample " + sample + " counted 5 late");
      }
    }
    // The files in the order the epoch first reads them, and the last position of each (hand-read
    // from the draws: file f holds samples 4f..4f+3).
    assertArrayEquals(new int[] {3, 0, 4, 1, 2}, use.files());
    assertEquals(FileNeeds.key(0, 7), needs.lastUse(0));
    assertEquals(FileNeeds.key(0, 15), needs.lastUse(1));
    assertEquals(FileNeeds.key(0, 19), needs.lastUse(2));
    assertEquals(FileNeeds.key(0, 5), needs.lastUse(3));
    assertEquals(FileNeeds.key(0, 12), needs.lastUse(4));
  }

  @Test
  void aSampleDrawnTwiceIsWhereItsBatchIsAndOneNotDrawnIsNowhere() {
    // Sample 5 at positions 1 and 6 (draws with replacement), sample 19 not drawn at all.
    int[] draws = {0, 5, 1, 2, 3, 4, 5, 6, 7, 8};
    FileNeeds needs = new FileNeeds(drawing(draws), files, 1, 1, 2, 0, 0);
    FileNeeds.EpochUse use = needs.epoch(0, 0, 0);
    assertEquals(1, use.position(5, 0));
    assertEquals(6, use.position(5, 6), "the second draw, where its batch is");
    assertEquals(6, use.position(5, 7));
    // Far from both: not where its batch is.
    assertEquals(-1, use.position(5, 9 + 100));
    assertEquals(-1, use.position(19, 3));
  }

  @Test
  void aTrainerOfItsShareCountsOnlyItsBatchesFilesFoundByItsFirstRow() {
    // Two trainers, batches of 4: trainer 1 writes positions 4-7 and 12-15 (samples 15 14 1 2 and
    // 17 7 4 6), so it reads files 3, 0, 4, 1 (not 2); its first row, sample 15 at position 4, says
    // which batches are its own.
    FileNeeds needs = new FileNeeds(drawing(PERMUTATION), files, 1, 2, 4, 0, 0);
    FileNeeds.EpochUse use = needs.epoch(0, 15, 4);
    assertArrayEquals(new int[] {3, 0, 4, 1}, use.files());
    assertEquals(-1, needs.lastUse(2));
    assertEquals(FileNeeds.key(0, 15), needs.lastUse(1));
    assertEquals(FileNeeds.key(0, 7), needs.lastUse(0));
  }

  /**
   * An epoch of two million draws, scanned in stretches on several threads (as many as the cores,
   * and 1, 2, 3 and 7 set by hand): the files in the order they are first read and each one's last
   * use are those of the whole epoch, whichever stretch saw them (a file first read at a stretch's end and again at the next one's start; one read last in
   * a later stretch than first; one never read).
   */
  @Test
  void aLongEpochIsScannedAsOne() {
    int n = 2_100_000;
    int[] draws = new int[n];
    Arrays.fill(draws, 17); // file 4
    draws[3] = 9; // file 2 ...
    draws[1_200_000] = 9; // ... read last here
    draws[1_049_999] = 0; // file 0, at the end of the first half ...
    draws[1_050_000] = 1; // ... and at the start of the second
    draws[2_000_000] = 4; // file 1, once
    // 2 stretches cut at 1 050 000, between file 0's two reads; 3 cut inside the first half; 7 put
    // file 2's last read in another stretch than its first; 1 is the plain scan.
    for (int stretches : new int[] {0, 1, 2, 3, 7}) {
      FileNeeds needs = new FileNeeds(drawing(draws), files, 1, 1, 4, 0, 0);
      needs.scanStretches = stretches;
      FileNeeds.EpochUse use = needs.epoch(0, 17, 0);
      String what = stretches + " stretches";
      assertArrayEquals(new int[] {4, 2, 0, 1}, use.files(), what);
      assertEquals(FileNeeds.key(0, 1_050_000), needs.lastUse(0), what);
      assertEquals(FileNeeds.key(0, 2_000_000), needs.lastUse(1), what);
      assertEquals(FileNeeds.key(0, 1_200_000), needs.lastUse(2), what);
      assertEquals(-1, needs.lastUse(3), what);
      assertEquals(FileNeeds.key(0, n - 1), needs.lastUse(4), what);
    }
  }
}
