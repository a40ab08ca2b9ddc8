package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.spi.Seeds;

/**
 * A random stream that a worker moves from sample to sample without allocating: {@link #reset}
 * starts the stream of (seed, coordinates) as {@link Seeds#derive} mixes them, and the draws follow
 * SplitMix64. For per-sample work in hot loops (image augmentation draws a handful of numbers per
 * image), where a new {@link java.util.SplittableRandom} per sample would be garbage. Not
 * thread-safe: one per worker thread.
 */
final class SeededRandom {
  private long state;

  /** A stream; call {@link #reset} before drawing. */
  public SeededRandom() {}

  /** Starts the stream of sample {@code index} of {@code epoch} under {@code seed}. */
  public SeededRandom reset(long seed, long epoch, long index) {
    state = Seeds.derive(Seeds.derive(seed, epoch), index);
    return this;
  }

  /** The next 64 random bits. */
  public long nextLong() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A float uniform in [0, 1). */
  public float nextFloat() {
    return (nextLong() >>> 40) * 0x1.0p-24f;
  }

  /** An int uniform in [lo, hi], both included ({@code std::uniform_int_distribution}'s range). */
  public int nextInt(int lo, int hi) {
    if (hi <= lo) {
      return lo;
    }
    long span = (long) hi - lo + 1;
    return (int) (lo + Math.floorMod(nextLong(), span));
  }

  /** True with probability 1/2. */
  public boolean nextBoolean() {
    return nextLong() < 0;
  }

  /** A normal draw with mean 0 and standard deviation {@code sigma} (Box–Muller). */
  public float nextGaussian(float sigma) {
    double u1 = ((nextLong() >>> 11) + 1) * 0x1.0p-53;
    double u2 = (nextLong() >>> 11) * 0x1.0p-53;
    return (float) (sigma * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2));
  }
}
