package dev.minibatch.runtime.internal.engine;

import dev.minibatch.LastBatch;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The one place that says what a {@link LastBatch} policy does with samples that do not fill a
 * batch. The planned epochs cut a whole part with it; streaming epochs, which learn the count only
 * when the source ends, cut their tail with it.
 */
final class LastBatchPolicy {
  /** Where the padding rows of a padded last batch come from. */
  enum Padding {
    /** No padding. */
    NONE,
    /** The first samples of this epoch's order, tiled (PAD_WRAP). */
    WRAP,
    /** A constant per name (PAD_CONSTANT). */
    CONSTANT,
    /** The first samples of the next epoch's order, which then starts after them (PAD_CONTINUE). */
    NEXT_EPOCH
  }

  /**
   * How {@code total} samples become batches.
   *
   * @param batches the number of batches
   * @param lastRows the rows of the last batch, padding included ({@code 0} without batches)
   * @param pad the padding rows at the end of the last batch
   * @param carry the samples at the end that are carried into the next epoch instead (ROLL_OVER)
   * @param padding where the padding rows come from
   */
  record Cut(int batches, int lastRows, int pad, int carry, Padding padding) {}

  private LastBatchPolicy() {}

  /**
   * Whether {@code policy} carries samples from one epoch into the next: ROLL_OVER the last ones to
   * its front, PAD_CONTINUE the next epoch's first ones as padding (delivered already).
   */
  static boolean carries(LastBatch policy) {
    return policy == LastBatch.ROLL_OVER || policy == LastBatch.PAD_CONTINUE;
  }

  /** Cuts {@code total} samples into batches of {@code batchSize} under {@code policy}. */
  static Cut cut(LastBatch policy, int total, int batchSize) {
    int full = total / batchSize;
    int rem = total % batchSize;
    if (rem == 0) {
      return new Cut(full, full == 0 ? 0 : batchSize, 0, 0, Padding.NONE);
    }
    switch (policy) {
      case PARTIAL:
        return new Cut(full + 1, rem, 0, 0, Padding.NONE);
      case DISCARD:
        return new Cut(full, full == 0 ? 0 : batchSize, 0, 0, Padding.NONE);
      case ROLL_OVER:
        return new Cut(full, full == 0 ? 0 : batchSize, 0, rem, Padding.NONE);
      case PAD_WRAP:
        return new Cut(full + 1, batchSize, batchSize - rem, 0, Padding.WRAP);
      case PAD_CONSTANT:
        return new Cut(full + 1, batchSize, batchSize - rem, 0, Padding.CONSTANT);
      case PAD_CONTINUE:
        return new Cut(full + 1, batchSize, batchSize - rem, 0, Padding.NEXT_EPOCH);
      default:
        throw new AssertionError(policy);
    }
  }

  /**
   * Completes a cut run of sample indices ({@code stream[0, total)} cut by {@code cut}): writes its
   * padding rows into {@code stream[total, total + pad)} and returns what the next epoch receives —
   * the one padding rule of the planned epochs. WRAP tiles {@code thisEpoch}; CONSTANT writes {@link
   * EpochPlan#CONSTANT_PAD}; NEXT_EPOCH tiles the next epoch's order, whose first samples then go to
   * the next epoch as already delivered, or tiles {@code thisEpoch} when the next epoch has no sample
   * here (a bucket the next epoch does not fill in this shard). ROLL_OVER hands over the last {@code
   * cut.carry()} samples, to the next epoch's front.
   *
   * @param nextEpoch the next epoch's order of the same samples, asked for only under NEXT_EPOCH
   * @return the carry into the next epoch, empty for none
   */
  static int[] finish(Cut cut, int[] stream, int total, int[] thisEpoch, Supplier<int[]> nextEpoch) {
    int[] carry = cut.carry() > 0 ? Arrays.copyOfRange(stream, total - cut.carry(), total) : new int[0];
    if (cut.pad() == 0) {
      return carry;
    }
    int[] from = thisEpoch;
    switch (cut.padding()) {
      case WRAP:
        break;
      case CONSTANT:
        Arrays.fill(stream, total, total + cut.pad(), EpochPlan.CONSTANT_PAD);
        return carry;
      case NEXT_EPOCH:
        int[] next = nextEpoch.get();
        if (next.length > 0) {
          from = next;
          carry = Arrays.copyOf(next, Math.min(cut.pad(), next.length));
        }
        break;
      default:
        throw new AssertionError(cut.padding());
    }
    // Never empty: thisEpoch holds the total > 0 samples just cut.
    for (int i = 0; i < cut.pad(); i++) {
      stream[total + i] = from[i % from.length];
    }
    return carry;
  }
}
