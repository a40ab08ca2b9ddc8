package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.spi.EpochDraws;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Shuffle quality on the worst case, a set written sorted by label (docs/shards.md, "Each trainer
 * reads its share"): 1 000 000 samples of 10 classes (class {@code id / 100 000}) in 2 000 files of 500,
 * the epoch cut into tenths; per tenth, each class's share of it against its share of the set
 * (10 %). Measured over 10 seeded epochs, on the epoch orders themselves (no file is read: the
 * order of a set depends only on its index).
 */
class ShuffleQualityTest {
  private static final int N = 1_000_000;
  private static final int PER_FILE = 500;
  private static final int CLASSES = 10;
  private static final int EPOCHS = 10;

  private static ShardIndex sortedSet() {
    List<ShardIndex.Entry> files = new ArrayList<>();
    for (int f = 0; f * PER_FILE < N; f++) {
      files.add(new ShardIndex.Entry("part-" + f + ".parquet", (long) f * PER_FILE, PER_FILE, 1, 0));
    }
    return new ShardIndex(List.of(), List.of(), files);
  }

  /** The largest distance, in percentage points, of a class's share of a tenth from 10 %, over the epochs. */
  static double worstTenth(EpochDraws order) {
    double worst = 0;
    int[] out = new int[N];
    for (int e = 0; e < EPOCHS; e++) {
      order.fill(e, out);
      for (int t = 0; t < 10; t++) {
        int[] count = new int[CLASSES];
        int from = t * N / 10;
        int to = (t + 1) * N / 10;
        for (int p = from; p < to; p++) {
          count[out[p] / (N / CLASSES)]++;
        }
        for (int c = 0; c < CLASSES; c++) {
          worst = Math.max(worst, Math.abs(100.0 * count[c] / (to - from) - 100.0 / CLASSES));
        }
      }
    }
    return worst;
  }

  private static EpochDraws window(int w) {
    return new MixOrder(List.of(sortedSet()), new double[] {1}, -1, true, 42, w);
  }

  private static EpochDraws partitions(int c, int w) {
    return new PartitionOrder(sortedSet(), true, 42, w, c, 64);
  }

  /**
   * docs/shards.md gives these figures (seed 42): partitions within 4 points of the share at
   * either window, where today's window shuffle strays more than 6 (a tenth of it holds 200 of the
   * 2 000 files, drawn at random, so its classes come in whole files by chance).
   */
  @Test
  void everyTenthOfAnEpochInPartitionsHoldsEachClassNearItsShare() {
    for (int w : new int[] {4096, 65_536}) {
      double windowed = worstTenth(window(w));
      for (int c : new int[] {1, 8, 64}) {
        double partitioned = worstTenth(partitions(c, w));
        assertTrue(partitioned <= 4.0, "partitions(" + c + "), window " + w + ": " + partitioned + " points");
        assertTrue(partitioned < windowed, "partitions(" + c + "), window " + w + ": " + partitioned
            + " points, the window shuffle " + windowed);
      }
      assertTrue(windowed > 6.0, "window shuffle, window " + w + ": " + windowed + " points");
    }
  }
}
