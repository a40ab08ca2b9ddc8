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
    int[] order = files(epoch);
    if (!shuffle) {
      fillFrom(order, 0, 0, out, 0, samples);
      return;
    }
    // Where each file's samples start in the epoch's order: a window fills its positions itself.
    long[] starts = new long[order.length + 1];
    for (int i = 0; i < order.length; i++) {
      starts[i + 1] = starts[i] + counts[order[i]];
    }
    forEachWindow(0, samples, window, (start, end, w) -> {
      int i = java.util.Arrays.binarySearch(starts, start);
      int file = i >= 0 ? i : -i - 2;
      fillFrom(order, file, starts[file], out, start, end);
      Seeds.shuffle(out, start, end, Seeds.derive(seed, epoch, 1, w));
    });
  }

  /**
   * Writes positions {@code [start, end)} of the files {@code order} read in turn, from {@code
   * order[file]} on, which starts at position {@code fileStart}: at or before {@code start}, the files
   * before it ending there or before.
   */
  private void fillFrom(int[] order, int file, long fileStart, int[] out, int start, int end) {
    int at = start;
    for (int i = file; at < end; i++) {
      int f = order[i];
      long first = firsts[f] + (at - fileStart);
      int n = (int) Math.min(end - at, fileStart + counts[f] - at);
      for (int k = 0; k < n; k++) {
        out[at + k] = (int) (first + k);
      }
      at += n;
      fileStart += counts[f];
    }
  }

  /**
   * Permutes {@code a[from, to)} in consecutive windows of {@code window} positions from {@code
   * from}, window {@code w} by a draw from {@code seedOf(w)}: the one window shuffle of shard sets
   * (this order's, and each partition's in {@link PartitionOrder}).
   */
  static void shuffleWindows(int[] a, int from, int to, int window, IntToLongFunction seedOf) {
    forEachWindow(from, to, window, (start, end, w) -> Seeds.shuffle(a, start, end, seedOf.applyAsLong(w)));
  }

  /** Work on window {@code w}, positions {@code [start, end)}. */
  @FunctionalInterface
  interface WindowWork {
    void run(int start, int end, int w);
  }

  /**
   * The positions below which an epoch's passes (this order's windows, {@link FileNeeds}' scan) run
   * on the calling thread alone: below it a pass takes well under a millisecond.
   */
  static final int PARALLEL_FROM = 1 << 20;

  /**
   * Runs {@code work} on every window of {@code window} positions of {@code [from, to)} (the last
   * one shorter). Windows are independent (each its own draw, its own positions), so a long order's
   * are spread over the common fork-join pool: an epoch of 10^8 samples is drawn before its first
   * batch, and on one core its windows alone took a third of a second (docs/performance.md, "Opening a
   * large set"). The result does not depend on which thread runs which window.
   */
  static void forEachWindow(int from, int to, int window, WindowWork work) {
    int windows = (int) (((long) to - from + window - 1) / window);
    java.util.stream.IntStream ws = java.util.stream.IntStream.range(0, windows);
    if ((long) to - from >= PARALLEL_FROM) {
      ws = ws.parallel();
    }
    ws.forEach(w -> {
      int start = from + w * window;
      work.run(start, (int) Math.min(to, (long) start + window), w);
    });
  }
}
