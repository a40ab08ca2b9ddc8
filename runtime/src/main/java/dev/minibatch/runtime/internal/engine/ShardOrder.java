package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.spi.Seeds;
import java.util.SplittableRandom;

/**
 * The one shard rule of the planned orders ({@link SampleOrderPlan}, {@link BucketOrderPlan}):
 * which samples part {@code partIndex} of {@code numParts} visits in an epoch, in which order,
 * before any last-batch policy.
 *
 * <p>The epoch's order is the identity, or with shuffle a permutation drawn from (seed, epoch)
 * alone (Fisher–Yates over a {@link SplittableRandom} seeded by {@link Seeds#derive(long, long)}
 * of the epoch); the part is the contiguous block {@code [floor(p*n/k), floor((p+1)*n/k))} of that
 * order (with {@code evenShards}, every part takes {@code ceil(n/k)} samples from {@code p *
 * ceil(n/k)} on, wrapping to the order's start).
 *
 * <p>Reuses its buffers: an order it returned is valid until the next call with the same {@code
 * second} flag, and its caller may write it until then (a plan over the order may be the order
 * itself, its entries mapped in place by a drawn order): every call fills the buffer anew. Not
 * thread-safe.
 */
final class ShardOrder {
  private final int numSamples;
  private final Sampling sampling;
  private final int shardSize;
  private int[] orderBuffer = new int[0];
  private int[] nextOrderBuffer = new int[0];
  private int[] partBuffer = new int[0];

  /**
   * The parts of {@code numSamples} samples under {@code sampling}.
   *
   * @throws IllegalArgumentException if there are no samples, or this provider's part would be empty
   */
  ShardOrder(int numSamples, Sampling sampling) {
    if (numSamples <= 0) {
      throw new IllegalArgumentException("no samples: a provider needs at least one sample");
    }
    this.numSamples = numSamples;
    this.sampling = sampling;
    int k = sampling.numParts();
    int p = sampling.partIndex();
    this.shardSize = sampling.shardSize(numSamples);
    if (shardSize == 0) {
      throw new IllegalArgumentException("shard " + p + " of " + k + " would be empty: " + numSamples
          + " samples cannot fill " + k + " shards; use fewer shards or evenShards(true)");
    }
  }

  int numSamples() {
    return numSamples;
  }

  /** The samples this part visits per epoch. */
  int shardSize() {
    return shardSize;
  }

  /**
   * The order of this part's samples in {@code epoch} under {@code seed}; {@code second} selects
   * the buffer for a look-ahead epoch so that the current one stays intact.
   */
  int[] order(long seed, int epoch, boolean second) {
    int n = numSamples;
    int[] order = second ? nextOrderBuffer : orderBuffer;
    if (order.length != n) {
      order = new int[n];
      if (second) {
        nextOrderBuffer = order;
      } else {
        orderBuffer = order;
      }
    }
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    if (sampling.shuffle()) {
      Seeds.shuffle(order, 0, n, Seeds.derive(seed, epoch));
    }
    if (sampling.numParts() == 1) {
      return order;
    }
    long start = sampling.partStart(n);
    int[] part = second ? new int[shardSize] : partBuffer;
    if (part.length != shardSize) {
      part = new int[shardSize];
      partBuffer = part;
    }
    for (int i = 0; i < shardSize; i++) {
      part[i] = order[(int) ((start + i) % n)];
    }
    return part;
  }
}
