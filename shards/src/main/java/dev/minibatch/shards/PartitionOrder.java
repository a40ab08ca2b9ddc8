package dev.minibatch.shards;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.spi.Seeds;
import java.util.ArrayList;
import java.util.List;

/**
 * The global order of one shard set read in {@code C} canonical partitions (docs/shards.md, "Each
 * trainer reads its share"), a pure function of (seed, epoch) that does not depend on the trainers:
 *
 * <ol>
 *   <li>partition {@code c} takes one file of every stratum of {@code C} consecutive files, with
 *       shuffle slot {@code c} of the stratum's slots permuted, and reads its files in a scrambled
 *       bit-reversed order ({@link #files});
 *   <li>its samples in that file order are its stream; with shuffle the first {@code L} positions
 *       are permuted in windows of {@code W}; {@code L = B · floor(n / B)}, {@code n} the fewest
 *       samples a partition can hold (the smallest file of every full stratum);
 *   <li>the epoch: batch-sized chunks of the partitions in turn, chunk {@code r} of partition 0,
 *       of 1, …, of {@code C-1}, then chunk {@code r + 1}; then the tail: what is left of each
 *       stream, partition after partition, permuted in windows.
 * </ol>
 *
 * So global batch {@code j < C · L / B} is chunk {@code j / C} of partition {@code j mod C}: a
 * trainer that gets every {@code k}-th batch, {@code k} dividing {@code C}, reads the files of
 * {@code C / k} partitions only (and of the tail). The strata give every partition files from the
 * whole set, and the bit-reversed order gives every run of a partition's files, so every part of
 * the epoch, files from the whole set: a set written sorted by label has each label in each part
 * of the epoch in about its share.
 */
final class PartitionOrder implements EpochDraws {
  private final ShardIndex index;
  private final long[] firsts;
  private final int[] counts;
  private final int samples;
  private final boolean shuffle;
  private final long seed;
  private final int window;
  private final int partitions;
  private final int batch;
  private final int length;

  /**
   * @throws IllegalArgumentException if a partition would hold no whole batch
   */
  PartitionOrder(ShardIndex index, boolean shuffle, long seed, int window, int partitions, int batch) {
    this.index = index;
    this.firsts = index.firsts();
    this.counts = index.files().stream().mapToInt(ShardIndex.Entry::samples).toArray();
    // GlobalOrder refuses a set larger than an int array holds.
    this.samples = new GlobalOrder(index, false, seed, window).length();
    this.shuffle = shuffle;
    this.seed = seed;
    this.window = window;
    this.partitions = partitions;
    this.batch = batch;
    // L: the whole batches of the smallest partition any draw can make (each partition takes one
    // file of every full stratum, and maybe none of a last, partial one), so that L does not
    // depend on the epoch.
    long smallest = 0;
    for (int g = 0; (long) (g + 1) * partitions <= counts.length; g++) {
      int least = Integer.MAX_VALUE;
      for (int i = g * partitions; i < (g + 1) * partitions; i++) {
        least = Math.min(least, counts[i]);
      }
      smallest += least;
    }
    this.length = (int) (batch * (smallest / batch));
  }

  /**
   * The order of {@code source}'s set, read by the trainer {@code sampling} names.
   *
   * @throws IllegalArgumentException for what the partitions cannot serve, naming the fix: a mix or
   *     {@code samplesPerEpoch}, contiguous shards, a trainer count that does not divide the
   *     partitions, ROLL_OVER, or a set too small for one batch per partition
   */
  static PartitionOrder of(ShardSource source, List<ShardIndex> indexes, String directory, Sampling sampling) {
    int c = source.partitions;
    String asked = "partitions(" + c + ")";
    if (source.mix || indexes.size() > 1 || source.samplesPerEpoch > 0) {
      throw new IllegalArgumentException(asked + " reads one shard set whole, epoch by epoch; it does not read "
          + (source.samplesPerEpoch > 0 && !source.mix ? "samplesPerEpoch(" + source.samplesPerEpoch + ")" : "a mix")
          + ": leave partitions unset for this source (every trainer then reads every file of the window)");
    }
    int k = sampling.numParts();
    if (k > 1 && !sampling.elasticShards()) {
      throw new IllegalArgumentException(asked + " deals the global batches to the trainers in turn, so that each reads "
          + "its partitions; shard(" + k + ", " + sampling.partIndex() + ") with elasticShards(false) cuts contiguous "
          + "blocks instead: use elasticShards(true) (the default of shard sets)");
    }
    if (c % k != 0) {
      throw new IllegalArgumentException(asked + " serves trainer counts that divide " + c + " " + divisors(c)
          + ", each trainer reading its partitions only; shard(" + k + ", " + sampling.partIndex() + ") would "
          + "read nearly every file on every trainer: use one of those counts, or partitions(n) with n a multiple of "
          + k + " (e.g. " + lcm(c, k) + "), which is another global order: a state saved under " + asked
          + " does not restore under it");
    }
    if (sampling.lastBatch() == LastBatch.ROLL_OVER) {
      throw new IllegalArgumentException(asked + " keeps every global batch inside one partition; lastBatch ROLL_OVER "
          + "carries samples into the next epoch and shifts every batch of it across two: use PAD_WRAP, PAD_CONSTANT, "
          + "PARTIAL or DISCARD");
    }
    ShardIndex index = indexes.get(0);
    int b = sampling.batchSize();
    PartitionOrder order = new PartitionOrder(index, sampling.shuffle(), sampling.seed(), source.shuffleWindow, c, b);
    if (order.partitionLength() == 0) {
      throw new IllegalArgumentException(asked + " with batches of " + b + ": the shard set " + directory + " holds "
          + index.samples() + " samples, fewer than a batch per partition (" + (long) c * b + "): use fewer "
          + "partitions or smaller batches");
    }
    return order;
  }

  /** The divisors of {@code n}, as "(1, 2, 4, 8)"; of many, the first ten, "…" and {@code n}. */
  private static String divisors(int n) {
    List<String> d = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      if (n % i == 0) {
        d.add(Integer.toString(i));
      }
    }
    return "(" + (d.size() <= 12 ? String.join(", ", d) : String.join(", ", d.subList(0, 10)) + ", …, " + n) + ")";
  }

  private static long lcm(int a, int b) {
    long x = a;
    long y = b;
    while (y != 0) {
      long t = x % y;
      x = y;
      y = t;
    }
    return (long) a / x * b;
  }

  /** The positions of each partition, {@code L}; 0 when the set holds fewer than {@code C · B} samples. */
  int partitionLength() {
    return length;
  }

  int partitions() {
    return partitions;
  }

  int batch() {
    return batch;
  }

  int window() {
    return window;
  }

  @Override
  public int length() {
    return samples;
  }

  @Override
  public long seed() {
    return seed;
  }

  @Override
  public EpochDraws reseeded(long other) {
    return other == seed ? this : new PartitionOrder(index, shuffle, other, window, partitions, batch);
  }

  @Override
  public String describe() {
    // The batch size is in the engine's own part of a state; the window decides nothing without shuffle.
    return (shuffle ? "window=" + window + " " : "") + "partitions=" + partitions;
  }

  /**
   * The files of each partition in the order epoch {@code epoch} reads them: the files in strata of
   * {@code C} consecutive ones (index order), each stratum's slots permuted by a draw from {@code
   * Seeds.derive(seed, epoch, 3, g)} (a last stratum of fewer files has empty slots), partition
   * {@code c} taking slot {@code c} of every stratum; then its files read in a scrambled
   * bit-reversed order ({@link #scrambled}) of their places in that list. Without shuffle,
   * partition {@code c} reads files {@code c, c + C, …} in that order.
   */
  int[][] files(int epoch) {
    int f = counts.length;
    int strata = (f + partitions - 1) / partitions;
    int[] slots = new int[strata * partitions];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = i < f ? i : -1;
    }
    if (shuffle) {
      for (int g = 0; g < strata; g++) {
        Seeds.shuffle(slots, g * partitions, (g + 1) * partitions, Seeds.derive(seed, epoch, 3, g));
      }
    }
    int[][] files = new int[partitions][];
    int[] mine = new int[strata];
    for (int c = 0; c < partitions; c++) {
      int n = 0;
      for (int g = 0; g < strata; g++) {
        int file = slots[g * partitions + c];
        if (file >= 0) {
          mine[n++] = file;
        }
      }
      files[c] = new int[n];
      int[] order = shuffle ? scrambled(n, epoch, c) : null;
      for (int i = 0; i < n; i++) {
        files[c][i] = mine[order == null ? i : order[i]];
      }
    }
    return files;
  }

  /**
   * {@code 0 .. n-1} in a scrambled bit-reversed order: for {@code i} from 0 to {@code 2^D - 1}
   * ({@code D} bits hold {@code n - 1}), {@code x} is built from its highest bit down, bit by bit:
   * the next lowest bit of {@code i}, flipped when the lowest bit of {@code Seeds.derive(seed,
   * epoch, 4, c, node)} is 1, {@code node} naming the bits chosen so far ({@code 1}, then {@code
   * 2·node + bit}); values {@code >= n} are skipped. Any run of it spreads over {@code 0 .. n-1}
   * (consecutive values fall in opposite halves, then quarters, …), and the flips make the
   * neighbours of a value differ from epoch to epoch.
   */
  private int[] scrambled(int n, int epoch, int c) {
    int bits = n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    int nodes = 1 << bits;
    boolean[] flip = new boolean[nodes];
    for (int node = 1; node < nodes; node++) {
      flip[node] = (Seeds.derive(seed, epoch, 4, c, node) & 1) != 0;
    }
    int[] order = new int[n];
    int at = 0;
    for (int i = 0; i < nodes; i++) {
      int node = 1;
      int x = 0;
      for (int l = 0; l < bits; l++) {
        int bit = ((i >>> l) & 1) ^ (flip[node] ? 1 : 0);
        x = (x << 1) | bit;
        node = (node << 1) | bit;
      }
      if (x < n) {
        order[at++] = x;
      }
    }
    return order;
  }

  @Override
  public void fill(int epoch, int[] out) {
    int[][] files = files(epoch);
    int[][] streams = new int[partitions][];
    int tail = 0;
    for (int c = 0; c < partitions; c++) {
      int n = 0;
      for (int file : files[c]) {
        n += counts[file];
      }
      int[] stream = new int[n];
      int at = 0;
      for (int file : files[c]) {
        int first = (int) firsts[file];
        for (int i = 0; i < counts[file]; i++) {
          stream[at++] = first + i;
        }
      }
      if (shuffle) {
        windows(stream, 0, length, epoch, c);
      }
      streams[c] = stream;
      tail += n - length;
    }
    int at = 0;
    for (int r = 0; r < length; r += batch) {
      for (int c = 0; c < partitions; c++) {
        System.arraycopy(streams[c], r, out, at, batch);
        at += batch;
      }
    }
    int tailStart = at;
    for (int c = 0; c < partitions; c++) {
      System.arraycopy(streams[c], length, out, at, streams[c].length - length);
      at += streams[c].length - length;
    }
    if (shuffle) {
      windows(out, tailStart, tailStart + tail, epoch, partitions);
    }
  }

  /**
   * Permutes {@code a[from, to)} in windows of {@code W} from {@code from}, window {@code w} by a
   * draw from {@code Seeds.derive(seed, epoch, 5, c, w)}.
   */
  private void windows(int[] a, int from, int to, int epoch, int c) {
    GlobalOrder.shuffleWindows(a, from, to, window, w -> Seeds.derive(seed, epoch, 5, c, w));
  }
}
