package dev.minibatch.runtime.pipeline;

import java.util.Locale;

/**
 * A snapshot of one threaded stage's counters. Times are sums over the stage's worker threads, in
 * nanoseconds, from the stage's start to the snapshot (or to the stage's end).
 *
 * @param name the stage's name
 * @param workers the number of worker threads
 * @param items items the stage handed to its consumer's queue
 * @param busyNanos time the workers spent doing the stage's work (for a producer, running its
 *     body or pulling from its sequential upstream; for a map, mapping)
 * @param waitInputNanos time the workers spent waiting for input (a map pulling from its source)
 * @param blockedOutputNanos time the workers spent blocked because the output queue was full
 * @param consumerWaitNanos time the stage's consumer spent waiting for an item
 * @param wallNanos time since the stage started, or its lifetime if it has ended
 * @param queueDepth items in the output queue at the snapshot
 * @param queueCapacity the output queue's capacity in items ({@link Integer#MAX_VALUE} when
 *     unbounded)
 */
public record StageStats(
    String name,
    int workers,
    long items,
    long busyNanos,
    long waitInputNanos,
    long blockedOutputNanos,
    long consumerWaitNanos,
    long wallNanos,
    int queueDepth,
    int queueCapacity) {

  /** The share of the workers' time spent busy: {@code busy / (wall * workers)}, in [0, 1]. */
  public double utilization() {
    return wallNanos <= 0 || workers == 0 ? 0 : Math.min(1.0, busyNanos / ((double) wallNanos * workers));
  }

  /** The share of the consumer's time spent waiting on this stage, in [0, 1]. */
  public double consumerWaitShare() {
    return wallNanos <= 0 ? 0 : Math.min(1.0, consumerWaitNanos / (double) wallNanos);
  }

  /** One line, e.g. {@code xmap[2]: 1000 items, busy 97%, input 1%, blocked 0%, queue 3/66}. */
  @Override
  public String toString() {
    double denom = Math.max(1, wallNanos) * (double) Math.max(1, workers);
    return String.format(Locale.ROOT, "%s[%d]: %d items, busy %.0f%%, input %.0f%%, blocked %.0f%%, queue %d/%s",
        name, workers, items, 100 * utilization(), 100 * waitInputNanos / denom,
        100 * blockedOutputNanos / denom, queueDepth,
        queueCapacity == Integer.MAX_VALUE ? "unbounded" : Integer.toString(queueCapacity));
  }
}
