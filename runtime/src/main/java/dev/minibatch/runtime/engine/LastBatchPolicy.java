package dev.minibatch.runtime.engine;

import dev.minibatch.LastBatch;

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
}
