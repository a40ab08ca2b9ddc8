package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;

/**
 * The order plans of the engine: which sample each row of each batch of an epoch holds.
 * Implemented by {@link SampleOrderPlan} (in order, shuffled, sharded), {@link DrawnOrder} (drawn by
 * the provider, then sharded and cut the same way) and {@link BucketOrderPlan} (sharded the same
 * way, then grouped by length bucket, every bucket cut on its own) and {@link StreamOrder} (a
 * streaming source, cut as its pass is read). Called under the engine's write lock.
 */
interface OrderPlan {
  /**
   * The plan of a random-access provider over {@code numSamples} samples addressed by index: a
   * {@link SampleOrderPlan}, dealt to elastic parts by a {@link DealtOrder} when the settings ask.
   */
  static OrderPlan of(int numSamples, Sampling sampling) {
    return sampling.elasticShards()
        ? new DealtOrder(new SampleOrderPlan(numSamples, sampling.global()), sampling)
        : new SampleOrderPlan(numSamples, sampling);
  }

  /** Rows per full batch. */
  int batchSize();

  /** Samples (or draws) this shard visits per epoch, before padding. */
  int shardSize();

  /** The seed in use. */
  long seed();

  /** The next epoch's plan, with sample indices. */
  EpochPlan beginEpoch();

  IterationState saveState();

  void restoreState(IterationState state);

  /** Forgets carried samples. */
  void reset();

  /** Releases what the plan holds open (a streaming source's restored pass); nothing by default. */
  default void close() {}

  /**
   * Rejects a state whose position lies beyond its epoch of {@code batches} batches (the one
   * message of every plan).
   */
  static void checkPosition(IterationState state, int batches) {
    if (state.position() > batches) {
      throw new IllegalArgumentException("iteration state: position " + state.position() + " is out of range; epoch "
          + state.epoch() + " has " + batches + " batches, so the position must be in [0, " + batches + "]");
    }
  }
}
