package dev.minibatch.runtime;

import dev.minibatch.runtime.check.Check;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * How a bucketed provider groups samples of similar length (MXNet's {@code BucketSentenceIter},
 * tf.data's {@code bucket_by_sequence_length}): a list of strictly increasing bucket bounds, given
 * ({@link #of}) or chosen from the data ({@link #byCount}). A sample of length {@code L} goes to
 * the smallest bucket whose bound is {@code >= L}; the bound is the bucket's key (MXNet's {@code
 * bucket_key}), the length every batch of that bucket can be padded to. A sample longer than the
 * largest bound is an error when the provider is built, never silently dropped (MXNet drops it).
 *
 * <p>Immutable. {@link #resolve(int[])} gives the concrete bounds for one data set; {@link
 * #assign(int[], int[])} the bucket of every sample.
 */
public final class Buckets {
  private final int[] bounds;
  private final int count;

  private Buckets(int[] bounds, int count) {
    this.bounds = bounds;
    this.count = count;
  }

  /**
   * Fixed bounds, e.g. {@code Buckets.of(8, 16, 32, 64)}.
   *
   * @throws IllegalArgumentException if there are none, one is below 1, or they do not strictly
   *     increase (the message names the offending position and values)
   */
  public static Buckets of(int... bounds) {
    int[] b = bounds.clone();
    checkBounds(b);
    return new Buckets(b, b.length);
  }

  /**
   * At most {@code count} buckets with bounds chosen from the data's lengths by {@link
   * #resolve(int[])}: equal-frequency (quantile) buckets, so each holds about {@code n / count}
   * samples.
   *
   * @throws IllegalArgumentException if {@code count < 1}
   */
  public static Buckets byCount(int count) {
    Check.atLeast("bucket count", count, 1);
    return new Buckets(new int[0], count);
  }

  /** Whether the bounds come from the data ({@link #byCount}) rather than being given. */
  public boolean fromData() {
    return bounds.length == 0;
  }

  /** The number of buckets asked for: the given bounds, or the count (an upper bound for data). */
  public int count() {
    return count;
  }

  /**
   * The concrete bounds for a data set whose sample {@code i} has length {@code lengths[i]}.
   *
   * <p>Given bounds are returned as they are (bucket keys do not depend on the data), after checking
   * that every sample fits. For {@link #byCount(int) byCount(c)}, with the {@code n} lengths sorted
   * ascending as {@code s[0..n)}: candidate {@code q} (for {@code q = 1..c}) is {@code
   * s[ceil(q * n / c) - 1]}, the nearest-rank {@code q/c} quantile, raised to at least 1; the bounds
   * are the distinct candidates in ascending order. So the last bound is the longest length, every
   * bound is a length that occurs (or 1), and ties make fewer than {@code c} buckets: lengths {@code
   * {1, 1, 1, 1, 2, 3, 4, 5}} with {@code c = 4} give candidates {@code 1, 1, 3, 5}, bounds {@code
   * [1, 3, 5]}.
   *
   * @return a fresh array of strictly increasing bounds, each {@code >= 1}
   * @throws IllegalArgumentException if {@code lengths} is empty, a length is negative, or (given
   *     bounds) a sample is longer than the largest bound, naming the sample, its length and that
   *     bound
   */
  public int[] resolve(int[] lengths) {
    if (lengths.length == 0) {
      throw new IllegalArgumentException("no samples: bucket bounds need at least one sample length");
    }
    if (!fromData()) {
      assign(bounds, lengths);
      return bounds.clone();
    }
    for (int i = 0; i < lengths.length; i++) {
      checkLength(i, lengths[i]);
    }
    int[] sorted = lengths.clone();
    Arrays.sort(sorted);
    long n = sorted.length;
    int[] out = new int[count];
    int m = 0;
    for (int q = 1; q <= count; q++) {
      int rank = (int) ((q * n + count - 1) / count); // ceil(q * n / count), in [1, n]
      int bound = Math.max(1, sorted[rank - 1]);
      if (m == 0 || bound > out[m - 1]) {
        out[m++] = bound;
      }
    }
    return Arrays.copyOf(out, m);
  }

  /**
   * The bucket (an index into {@code bounds}) of every sample: the smallest {@code b} with {@code
   * bounds[b] >= lengths[i]}.
   *
   * @throws IllegalArgumentException if the bounds are not valid (as {@link #of}), a length is
   *     negative, or a sample is longer than the largest bound (naming the sample, its length and the
   *     largest bound)
   */
  public static int[] assign(int[] bounds, int[] lengths) {
    checkBounds(bounds);
    int largest = bounds[bounds.length - 1];
    int[] out = new int[lengths.length];
    for (int i = 0; i < lengths.length; i++) {
      int len = lengths[i];
      checkLength(i, len);
      if (len > largest) {
        throw new IllegalArgumentException("sample " + i + " has length " + len
            + ", longer than the largest bucket bound " + largest + ": add a larger bound, or set a maxLength that truncates or rejects long samples");
      }
      int b = Arrays.binarySearch(bounds, len);
      out[i] = b >= 0 ? b : -b - 1; // not found: the insertion point is the first bound above len
    }
    return out;
  }

  private static void checkLength(int i, int len) {
    Check.atLeast("the length of sample " + i, len, 0);
  }

  private static void checkBounds(int[] bounds) {
    if (bounds.length == 0) {
      throw new IllegalArgumentException("at least one bucket bound is needed");
    }
    for (int b = 0; b < bounds.length; b++) {
      Check.atLeast("bucket bound " + b + " of " + Arrays.toString(bounds), bounds[b], 1);
      if (b > 0 && bounds[b] <= bounds[b - 1]) {
        throw new IllegalArgumentException("bucket bounds must strictly increase, but bound " + b + " (" + bounds[b]
            + ") is not above bound " + (b - 1) + " (" + bounds[b - 1] + "): " + Arrays.toString(bounds));
      }
    }
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Buckets && ((Buckets) o).count == count && Arrays.equals(((Buckets) o).bounds, bounds);
  }

  @Override
  public int hashCode() {
    return 31 * count + Arrays.hashCode(bounds);
  }

  /** {@code Buckets.of(4, 8, 16)} or {@code Buckets.byCount(4)}. */
  @Override
  public String toString() {
    if (fromData()) {
      return "Buckets.byCount(" + count + ")";
    }
    StringBuilder sb = new StringBuilder("Buckets.of(");
    for (int b = 0; b < bounds.length; b++) {
      sb.append(b > 0 ? ", " : "").append(bounds[b]);
    }
    return sb.append(')').toString();
  }
}
