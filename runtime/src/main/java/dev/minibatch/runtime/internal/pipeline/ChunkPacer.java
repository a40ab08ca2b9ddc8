package dev.minibatch.runtime.internal.pipeline;

/**
 * Chooses how many items a producer gathers before handing them over. Handing over costs a lock
 * and possibly a thread wake-up (microseconds), so cheap items go in large chunks; but a chunk
 * delays its first item until it is full, so expensive items go one by one. The target keeps the
 * delay near {@link #TARGET_NANOS}: {@code target ≈ TARGET_NANOS / cost per item}, between 1 and
 * the maximum.
 */
final class ChunkPacer {
  /** The hand-off delay accepted for gathering a chunk. */
  static final long TARGET_NANOS = 200_000;

  private final int maxChunk;
  /** Moving average of the nanoseconds an item costs; starts high so the first item goes at once. */
  private double costNanos = TARGET_NANOS;

  ChunkPacer(int maxChunk) {
    this.maxChunk = Math.max(1, maxChunk);
  }

  /** The largest chunk for a queue of {@code capacity} items shared by {@code producers}. */
  static int maxChunkFor(int capacity, int producers) {
    // Leave room for the producers to gather the next chunk while the consumer holds one.
    return Math.max(1, Math.min(256, capacity / (2 * Math.max(1, producers))));
  }

  /** Records that {@code items} items took {@code nanos}. */
  void observe(long nanos, int items) {
    double perItem = nanos / (double) Math.max(1, items);
    costNanos += 0.25 * (perItem - costNanos);
  }

  /** The number of items to gather now. */
  int target() {
    double t = TARGET_NANOS / Math.max(1.0, costNanos);
    return t >= maxChunk ? maxChunk : Math.max(1, (int) t);
  }

  int maxChunk() {
    return maxChunk;
  }
}
