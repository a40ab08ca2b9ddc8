package dev.minibatch.benchmarks.pipeline;

/** Synthetic per-sample work for the pipeline benchmarks. */
final class Work {
  private Work() {}

  /** Loop iterations that cost about 50 µs of CPU on this machine; measured once per JVM. */
  static final int ITERATIONS_50_US = calibrate(50_000);

  /**
   * A fixed amount of arithmetic (not a wait on the clock), so two workers on two cores do twice
   * the work only if they really run in parallel.
   */
  static int cpu(int x, int iterations) {
    long h = x;
    for (int i = 0; i < iterations; i++) {
      h = h * 6364136223846793005L + 1442695040888963407L;
      h ^= h >>> 29;
    }
    return (int) h;
  }

  /** About 50 µs of CPU. */
  static int cpu50us(int x) {
    return cpu(x, ITERATIONS_50_US);
  }

  /**
   * Occupies the calling thread for {@code nanos} of wall time (a stand-in for a model step or a
   * read of fixed duration, whatever else runs on the machine).
   */
  static void busyFor(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  private static int calibrate(long targetNanos) {
    int iterations = 10_000;
    int sink = 0;
    // Warm the loop up, then take the best of several timings.
    for (int i = 0; i < 200; i++) {
      sink += cpu(i, iterations);
    }
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 50; i++) {
      long t0 = System.nanoTime();
      sink += cpu(i, iterations);
      best = Math.min(best, System.nanoTime() - t0);
    }
    if (sink == 42) {
      System.out.print("");
    }
    return (int) Math.max(1, iterations * targetNanos / Math.max(1, best));
  }
}
