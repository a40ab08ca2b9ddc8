package dev.minibatch.shards;

import dev.minibatch.runtime.spi.Seeds;
import java.util.function.IntToLongFunction;

/**
 * The global order of a shard set's samples in an epoch, a pure function of (seed, epoch):
 * without shuffle, the samples in index order; with shuffle, the files in a permutation drawn from
 * {@code Seeds.derive(seed, epoch, 0)}, their samples in file order, then every window of {@code
 * window} consecutive positions permuted by a draw from {@code Seeds.derive(seed, epoch, 1, w)}
 * ({@link Seeds#shuffle}, the engine's shuffle). A window spans about {@code
 * window / samplesPerFile} files, which is what the cache must hold.
 */
final class GlobalOrder {
  private final long[] firsts;
  private final int[] counts;
  private final int samples;
  private final boolean shuffle;
  private final long seed;
  private final int window;

  GlobalOrder(ShardIndex index, boolean shuffle, long seed, int window) {
    this.firsts = index.firsts();
    this.counts = index.files().stream().mapToInt(ShardIndex.Entry::samples).toArray();
    long n = index.samples();
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a shard set of " + n + " samples; a provider reads at most "
          + (Integer.MAX_VALUE - 8));
    }
    this.samples = (int) n;
    this.shuffle = shuffle;
    this.seed = seed;
    this.window = window;
  }

  /** The samples of the set. */
  int length() {
    return samples;
  }

  /** The files in the order epoch {@code epoch} reads them. */
  int[] files(int epoch) {
    int[] order = new int[counts.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (shuffle) {
      Seeds.shuffle(order, 0, order.length, Seeds.derive(seed, epoch, 0));
    }
    return order;
  }

  /**
   * At most {@code count} files that epoch {@code epoch} reads from position {@code from} on, in its
   * file order: from the file holding the first position of {@code from}'s window (with shuffle, a
   * window's positions hold the samples of the files its positions span in file order) or of {@code
   * from} itself.
   */
  int[] filesFrom(int epoch, long from, int count) {
    long at = shuffle ? from / window * (long) window : from;
    int[] order = files(epoch);
    int[] out = new int[Math.min(count, order.length)];
    int n = 0;
    long end = 0;
    for (int i = 0; i < order.length && n < out.length; i++) {
      end += counts[order[i]];
      if (end > at && counts[order[i]] > 0) {
        out[n++] = order[i];
      }
    }
    return java.util.Arrays.copyOf(out, n);
  }

  /** Writes epoch {@code epoch}'s order of the set's samples into {@code out[0, length())}. */
  void fill(int epoch, int[] out) {
    int at = 0;
    for (int f : files(epoch)) {
      int first = (int) firsts[f];
      for (int i = 0; i < counts[f]; i++) {
        out[at++] = first + i;
      }
    }
    if (shuffle) {
      shuffleWindows(out, 0, samples, window, w -> Seeds.derive(seed, epoch, 1, w));
    }
  }

  /**
   * Permutes {@code a[from, to)} in consecutive windows of {@code window} positions from {@code
   * from}, window {@code w} by a draw from {@code seedOf(w)}: the one window shuffle of shard sets
   * (this order's, and each partition's in {@link PartitionOrder}).
   */
  static void shuffleWindows(int[] a, int from, int to, int window, IntToLongFunction seedOf) {
    for (int w = 0; (long) w * window < to - from; w++) {
      int start = from + w * window;
      Seeds.shuffle(a, start, (int) Math.min(to, (long) start + window), seedOf.applyAsLong(w));
    }
  }
}
