package dev.minibatch.runtime.pipeline;

/**
 * Derives independent seeds from a base seed and coordinates such as (epoch, index), so random
 * draws depend on what is drawn for, never on which thread draws it or in which order.
 */
public final class Seeds {
  private Seeds() {}

  /** A seed determined by {@code seed} and the coordinates, well mixed (SplitMix64's finaliser). */
  public static long derive(long seed, long... coordinates) {
    long h = mix(seed);
    for (long c : coordinates) {
      h = mix(h ^ mix(c + 0x9E3779B97F4A7C15L));
    }
    return h;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
