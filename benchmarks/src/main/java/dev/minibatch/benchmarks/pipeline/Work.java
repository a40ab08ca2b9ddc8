package dev.minibatch.benchmarks.pipeline;

/** Synthetic per-sample work for the pipeline benchmarks. */
final class Work {
  private Work() {}

  /**
   * Loop iterations that cost about 50 µs of CPU on the 2-core development machine (2.75 ns an
   * iteration, measured on a quiet machine). A fixed count, not a per-JVM calibration: JMH runs every
   * benchmark in its own fork, and the worker counts must be compared on the same amount of work.
   */
  static final int ITERATIONS_50_US = 18_000;

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

}
