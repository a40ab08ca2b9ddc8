package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import java.util.Arrays;

/**
 * The engine's order plan on its own, for code that places samples somewhere else than a local
 * batch buffer (the Spark module routes rows to the executors building their batch): epoch by
 * epoch, the sample index of every row of every batch, exactly as a provider over {@code
 * numSamples} samples with the same {@link Sampling} delivers them — the same permutation from
 * (seed, epoch), the same shard, the same last-batch cut and padding, the same state for resume.
 * It is the scheduler every random-access provider uses, not a copy of it.
 *
 * <p>Not thread-safe; one order per consumer.
 */
public final class SampleOrder {
  /** The index of a row padded with a constant. */
  public static final int CONSTANT_PAD = EpochPlan.CONSTANT_PAD;

  private final OrderPlan scheduler;

  /**
   * The order of {@code numSamples} samples under {@code sampling}.
   *
   * @throws IllegalArgumentException if there are no samples or the shard would be empty
   */
  public SampleOrder(int numSamples, Sampling sampling) {
    this.scheduler = OrderPlan.of(numSamples, sampling);
  }

  /** The seed in use (drawn when the settings gave none). */
  public long seed() {
    return scheduler.seed();
  }

  /** Rows per full batch. */
  public int batchSize() {
    return scheduler.batchSize();
  }

  /**
   * The next epoch's batches (the first call gives epoch 0, or the restored one). The whole epoch
   * counts as handed out: {@link #saveState()} afterwards is the start of the following epoch.
   */
  public Epoch nextEpoch() {
    EpochPlan p = scheduler.beginEpoch();
    int n = p.batchCount();
    int start = p.position();
    int[][] batches = new int[n][];
    for (int j = 0; j < n; j++) {
      batches[j] = new int[p.rows(j)];
      p.indices(j, batches[j]);
    }
    for (int j = start; j < n; j++) {
      p.delivered();
    }
    return new Epoch(p.epoch(), batches, n == 0 ? 0 : p.pad(n - 1), start);
  }

  /** Where the order stands, as a provider's {@code saveState()} between epochs. */
  public IterationState saveState() {
    return scheduler.saveState();
  }

  /** Continues from {@code state}, as a provider's {@code restoreState}. */
  public void restoreState(IterationState state) {
    scheduler.restoreState(state);
  }

  /**
   * One epoch's batches.
   *
   * @param epoch the epoch, from 0
   * @param batches each batch's sample indices, padding included; {@link #CONSTANT_PAD} for a row
   *     padded with a constant
   * @param lastPad the padding rows at the end of the last batch
   * @param start the first batch to deliver (non-zero after a restored mid-epoch state)
   */
  public record Epoch(int epoch, int[][] batches, int lastPad, int start) {
    /** The number of batches. */
    public int batchCount() {
      return batches.length;
    }

    /** Every row's sample index, batch after batch, in one array. */
    public int[] rows() {
      return Arrays.stream(batches).flatMapToInt(Arrays::stream).toArray();
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("epoch ").append(epoch).append(':');
      for (int[] b : batches) {
        sb.append(' ').append(Arrays.toString(b));
      }
      return sb.toString();
    }
  }
}
