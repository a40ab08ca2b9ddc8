package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.spi.Seeds;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The order of one epoch when samples are drawn by class probability (the fourth element of Data
 * Provider Core's sample specification). The samples of class {@code c} are the global indices
 * {@code [offset(c), offset(c) + count(c))}, as {@link Hdf5Provider} lays them out.
 *
 * <p>Each draw picks a class with the given probabilities, then that class's next sample (in order,
 * or in a per-epoch permutation of the class with {@code shuffle}).
 *
 * <ul>
 *   <li>Without {@code wrapExamples}, a class whose samples are used up leaves the draw and the
 *       others' probabilities are renormalised, so an epoch holds every sample exactly once, in a
 *       probability-weighted interleaving; a class of probability 0 comes last.
 *   <li>With {@code wrapExamples}, an exhausted class starts again from its first sample, so the
 *       class proportions hold for the whole epoch, whose length is {@code epochLength} draws
 *       (default: the total sample count); classes of probability 0 are never drawn.
 * </ul>
 *
 * <p>The order is a pure function of (seed, epoch): computed in one sequential pass, it does not
 * depend on how many threads later read the samples. One pass costs one random draw and a few
 * array reads per sample, no allocation beyond the output.
 */
final class ClassSampler {
  private final int[] counts;
  private final int[] offsets;
  private final double[] probabilities;
  private final boolean wrap;
  private final boolean shuffle;
  private final long seed;
  private final int epochLength;

  /**
   * A sampler over classes with {@code counts[c]} samples each, drawn with weights {@code
   * probabilities[c]} (normalised here; they need not sum to 1).
   *
   * @param epochLength draws per epoch with {@code wrapExamples}; -1 for the total sample count.
   *     Without {@code wrapExamples} an epoch always holds every sample once and this must be -1.
   * @throws IllegalArgumentException for negative or non-finite weights, all weights 0 (or, with
   *     wrapping, all classes of positive weight empty), sizes that differ, or an epoch length
   *     without wrapping
   */
  public ClassSampler(int[] counts, double[] probabilities, boolean wrapExamples, boolean shuffle, long seed,
      int epochLength) {
    if (counts.length != probabilities.length || counts.length == 0) {
      throw new IllegalArgumentException(counts.length + " classes but " + probabilities.length + " probabilities");
    }
    double sum = 0;
    long total = 0;
    double drawable = 0;
    for (int c = 0; c < counts.length; c++) {
      double p = probabilities[c];
      Check.nonNegative("class " + c + ": sampling probability", p);
      if (counts[c] < 0) {
        throw new IllegalArgumentException("class " + c + ": negative sample count " + counts[c]);
      }
      sum += p;
      total += counts[c];
      if (counts[c] > 0) {
        drawable += p;
      }
    }
    if (sum == 0) {
      throw new IllegalArgumentException("every sampling probability is 0: " + Arrays.toString(probabilities));
    }
    if (wrapExamples && drawable == 0) {
      throw new IllegalArgumentException("with wrapExamples, a class of positive probability needs samples; counts "
          + Arrays.toString(counts) + ", probabilities " + Arrays.toString(probabilities));
    }
    if (!wrapExamples && epochLength != -1) {
      throw new IllegalArgumentException("an epoch length needs wrapExamples(true): without it an epoch holds every sample once");
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(total + " samples; at most " + Integer.MAX_VALUE + " are supported");
    }
    this.counts = counts.clone();
    this.offsets = new int[counts.length];
    for (int c = 1; c < counts.length; c++) {
      offsets[c] = offsets[c - 1] + counts[c - 1];
    }
    this.probabilities = new double[counts.length];
    for (int c = 0; c < counts.length; c++) {
      this.probabilities[c] = probabilities[c] / sum;
    }
    this.wrap = wrapExamples;
    this.shuffle = shuffle;
    this.seed = seed;
    this.epochLength = Check.atLeast("the draws per epoch", epochLength == -1 ? (int) total : epochLength, 1);
  }

  /** Draws per epoch. */
  public int epochLength() {
    return epochLength;
  }

  /** The class of global sample {@code index}. */
  public int classOf(int index) {
    int c = Arrays.binarySearch(offsets, index);
    if (c < 0) {
      c = -c - 2;
    }
    while (c + 1 < offsets.length && offsets[c + 1] == index) {
      c++;
    }
    return c;
  }

  /**
   * Writes the global sample indices of epoch {@code epoch} into {@code out[0, epochLength())}.
   *
   * @throws IllegalArgumentException if {@code out} is shorter than {@link #epochLength()}
   */
  public void epoch(int epoch, int[] out) {
    if (out.length < epochLength) {
      throw new IllegalArgumentException("need room for " + epochLength + " indices, got " + out.length);
    }
    SplittableRandom draws = new SplittableRandom(Seeds.derive(seed, epoch, -1));
    int k = counts.length;
    int[][] order = new int[k][];
    for (int c = 0; c < k; c++) {
      order[c] = classOrder(c, epoch);
    }
    int[] cursor = new int[k];
    double[] weight = new double[k];
    double live = 0;
    for (int c = 0; c < k; c++) {
      weight[c] = counts[c] > 0 ? probabilities[c] : 0;
      live += weight[c];
    }
    int zeroClass = 0;
    for (int i = 0; i < epochLength; i++) {
      int c;
      if (live > 0) {
        c = pick(draws.nextDouble() * live, weight);
      } else {
        // Without wrapping, only classes of probability 0 have samples left: they come last, in class order.
        while (cursor[zeroClass] == counts[zeroClass]) {
          zeroClass++;
        }
        c = zeroClass;
      }
      out[i] = offsets[c] + order[c][cursor[c]];
      if (++cursor[c] == counts[c]) {
        if (wrap) {
          cursor[c] = 0;
        } else if (weight[c] > 0) {
          weight[c] = 0;
          live = 0;
          for (double w : weight) {
            live += w;
          }
        }
      }
    }
  }

  private static int pick(double u, double[] weight) {
    int last = -1;
    for (int c = 0; c < weight.length; c++) {
      if (weight[c] > 0) {
        last = c;
        u -= weight[c];
        if (u < 0) {
          return c;
        }
      }
    }
    return last;
  }

  /** The local order of class {@code c} in {@code epoch}: 0, 1, … or a permutation from (seed, epoch, c). */
  private int[] classOrder(int c, int epoch) {
    int[] o = new int[counts[c]];
    for (int i = 0; i < o.length; i++) {
      o[i] = i;
    }
    if (shuffle) {
      Seeds.shuffle(o, 0, o.length, Seeds.derive(seed, epoch, c));
    }
    return o;
  }
}
