package dev.minibatch.shards;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.runtime.spi.Seeds;
import java.math.BigDecimal;
import java.util.List;

/**
 * A provider's epoch order over one or more shard sets (docs/shards.md, "Mixing shard sets"), a
 * pure function of (seed, epoch). Each set {@code s} of {@code n_s} samples has its own global
 * order ({@link GlobalOrder}; in a mix of several, seeded with {@code Seeds.derive(seed, 2, s)}),
 * and its epochs concatenated make its stream. An epoch of {@code E} samples takes {@code q_s}
 * from set {@code s} (quotas by weight, largest remainders rounded up): stream positions {@code
 * [e * q_s, (e + 1) * q_s)}. The epoch's positions are given to the sets in order of when each
 * set's next sample is due ({@code (j + 1/2) / q_s} for its {@code j}-th), lower set first on a tie,
 * and with shuffle that assignment is permuted by a draw from {@code Seeds.derive(seed, epoch, 2)}.
 * A single set read whole ({@code E = n}) is its global order.
 */
final class MixOrder implements EpochDraws {
  private final List<ShardIndex> indexes;
  private final double[] weights;
  private final long samples;
  private final int window;
  private final GlobalOrder[] sets;
  private final int[] sizes;
  private final int[] offsets;
  private final int[] quotas;
  private final int length;
  private final boolean shuffle;
  private final long seed;
  private final String description;

  /**
   * @param samples the samples per epoch, or {@code -1} for the samples of all sets
   * @throws IllegalArgumentException if the epoch is empty or longer than an int array holds
   */
  MixOrder(List<ShardIndex> indexes, double[] weights, long samples, boolean shuffle, long seed, int window) {
    int n = indexes.size();
    this.indexes = indexes;
    this.weights = weights;
    this.samples = samples;
    this.window = window;
    this.sets = new GlobalOrder[n];
    this.sizes = new int[n];
    this.offsets = new int[n];
    long total = 0;
    for (int s = 0; s < n; s++) {
      sets[s] = new GlobalOrder(indexes.get(s), shuffle, n == 1 ? seed : Seeds.derive(seed, 2, s), window);
      sizes[s] = sets[s].length();
      offsets[s] = (int) total;
      total += sizes[s];
    }
    long e = samples < 0 ? total : samples;
    // A Java array holds at most Integer.MAX_VALUE - 8 elements.
    this.length = (int) Check.inRange("samplesPerEpoch", e, 1, Integer.MAX_VALUE - 7L);
    this.quotas = quotas(weights, length);
    this.shuffle = shuffle;
    this.seed = seed;
    // Without shuffle the window decides nothing, so a state does not depend on it.
    StringBuilder d = new StringBuilder(shuffle ? "window=" + window : "");
    if (n > 1 || length != total) {
      d.append(d.length() == 0 ? "" : " ").append("mix=");
      for (int s = 0; s < n; s++) {
        d.append(s == 0 ? "" : ",").append(sizes[s]).append(':').append(quotas[s]);
      }
    }
    this.description = d.toString();
  }

  /**
   * {@code length} split by {@code weights}: each set gets the floor of its share {@code length ·
   * w_s / Σw}, and the samples left go one each to the sets with the largest remainders (the lower
   * set first on a tie). Computed exactly over the weights' values, so equal remainders are equal
   * (in doubles, 56 · 11 / 42 and 56 · 20 / 42 leave remainders that differ in their last bit).
   */
  static int[] quotas(double[] weights, int length) {
    BigDecimal sum = BigDecimal.ZERO;
    for (double w : weights) {
      sum = sum.add(new BigDecimal(w));
    }
    int[] q = new int[weights.length];
    // The remainder of share s is rest[s] / sum; compared without the division.
    BigDecimal[] rest = new BigDecimal[weights.length];
    long given = 0;
    BigDecimal total = BigDecimal.valueOf(length);
    for (int s = 0; s < weights.length; s++) {
      BigDecimal[] qr = total.multiply(new BigDecimal(weights[s])).divideAndRemainder(sum);
      q[s] = qr[0].intValueExact();
      rest[s] = qr[1];
      given += q[s];
    }
    for (long left = length - given; left > 0; left--) {
      int best = 0;
      for (int s = 1; s < weights.length; s++) {
        if (rest[s].compareTo(rest[best]) > 0) {
          best = s;
        }
      }
      q[best]++;
      rest[best] = BigDecimal.ONE.negate();
    }
    return q;
  }

  /** The same mix under {@code other}: a restored state's seed. */
  @Override
  public EpochDraws reseeded(long other) {
    return other == seed ? this : new MixOrder(indexes, weights, samples, shuffle, other, window);
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public long seed() {
    return seed;
  }

  @Override
  public String describe() {
    return description;
  }

  /** The samples set {@code s} gives each epoch. */
  int quota(int s) {
    return quotas[s];
  }

  /**
   * At most {@code count} of the files that epoch {@code epoch} reads first from position {@code
   * from} on ({@link GlobalOrder#filesFrom}): what read-ahead can load before a trainer whose epoch
   * starts there begins it. For one set read whole; none for a mix, whose epochs start in several
   * sets' streams.
   */
  int[] firstFiles(int epoch, long from, int count) {
    if (!whole() || count <= 0 || from < 0) {
      return new int[0];
    }
    return sets[0].filesFrom(epoch, from, count);
  }

  /** Whether the epoch is one set's global order, as {@link GlobalOrder} gives it. */
  private boolean whole() {
    return sets.length == 1 && length == sizes[0];
  }

  @Override
  public void fill(int epoch, int[] out) {
    if (whole()) {
      sets[0].fill(epoch, out);
      return;
    }
    assign(epoch, out);
    // Each set's stream from where this epoch starts in it: one of its epochs at a time.
    int[][] stream = new int[sets.length][];
    int[] at = new int[sets.length];
    int[] streamEpoch = new int[sets.length];
    for (int s = 0; s < sets.length; s++) {
      long start = (long) epoch * quotas[s];
      streamEpoch[s] = (int) (start / sizes[s]);
      at[s] = (int) (start % sizes[s]);
      if (quotas[s] > 0) {
        stream[s] = new int[sizes[s]];
        sets[s].fill(streamEpoch[s], stream[s]);
      }
    }
    for (int p = 0; p < length; p++) {
      int s = out[p];
      if (at[s] == sizes[s]) {
        sets[s].fill(++streamEpoch[s], stream[s]);
        at[s] = 0;
      }
      out[p] = offsets[s] + stream[s][at[s]++];
    }
  }

  /** Writes which set each position of epoch {@code epoch} draws from into {@code out}. */
  private void assign(int epoch, int[] out) {
    int[] taken = new int[sets.length];
    for (int p = 0; p < length; p++) {
      // The set whose next sample is due first: (taken + 1/2) / quota, compared without division.
      int best = -1;
      for (int s = 0; s < sets.length; s++) {
        if (taken[s] < quotas[s] && (best < 0
            || (2L * taken[s] + 1) * quotas[best] < (2L * taken[best] + 1) * quotas[s])) {
          best = s;
        }
      }
      out[p] = best;
      taken[best]++;
    }
    if (shuffle) {
      Seeds.shuffle(out, 0, length, Seeds.derive(seed, epoch, 2));
    }
  }
}
