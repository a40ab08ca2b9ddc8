package dev.minibatch.runtime.spi;

import java.util.SplittableRandom;

/**
 * The one seed derivation of the runtime: shuffles, class draws, parallel maps and reader threads
 * all derive their random streams from a base seed and coordinates such as (epoch) or (epoch,
 * index), so random draws depend on what is drawn for, never on which thread draws it or in which
 * order. {@link #unseeded()} is the one fallback when the user gives no seed.
 */
public final class Seeds {
  /** Seeds for unseeded providers; itself seeded from the JVM's entropy source. */
  private static final SplittableRandom FALLBACK = new SplittableRandom();

  private Seeds() {}

  /** A seed determined by {@code seed} and the coordinates, well mixed (SplitMix64's finaliser). */
  public static long derive(long seed, long... coordinates) {
    long h = mix(seed);
    for (long c : coordinates) {
      h = mix(h ^ mix(c + 0x9E3779B97F4A7C15L));
    }
    return h;
  }

  /** {@link #derive(long, long...)} of one coordinate, without the varargs array. */
  public static long derive(long seed, long coordinate) {
    return mix(mix(seed) ^ mix(coordinate + 0x9E3779B97F4A7C15L));
  }

  /**
   * The seed of a provider or reader built without one: drawn once, when it is built, from a
   * generator seeded by the JVM's entropy source, so two unseeded providers differ and one provider
   * is consistent with itself. Its {@code seed()} reports it, so a run can still be repeated.
   */
  public static long unseeded() {
    synchronized (FALLBACK) {
      return FALLBACK.nextLong();
    }
  }

  /**
   * Permutes {@code a[from, to)} in place: Fisher–Yates from the last position down, over a {@link
   * SplittableRandom} seeded with {@code seed} — the one shuffle of every planned order (samples,
   * buckets' batches, class draws, shard files and windows), so equal seeds give equal orders
   * everywhere.
   */
  public static void shuffle(int[] a, int from, int to, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    for (int i = to - 1; i > from; i--) {
      int j = from + rng.nextInt(i - from + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
