package dev.minibatch;

/**
 * What a provider does with the samples left over when the number of samples is not a multiple of
 * the batch size. The same policies serve every provider, generated and built-in; a batch's {@code
 * countSamples()} and {@code pad()} always say how many of its rows are real.
 *
 * <p>Examples below use 10 samples {@code 0..9} and batches of 3.
 */
public enum LastBatch {
  /**
   * Pad the last batch with rows filled with a constant (per name; MXNet.jl's {@code data_padding}
   * / {@code label_padding}): {@code [0,1,2] [3,4,5] [6,7,8] [9,c,c]} with {@code pad() == 2}.
   */
  PAD_CONSTANT,
  /**
   * Pad the last batch by wrapping to the start of the epoch's order, tiling when the pad exceeds
   * the data; every epoch starts again from its first sample (MXNet NDArrayIter {@code 'pad'},
   * MXNet.jl's wrapping): {@code [0,1,2] [3,4,5] [6,7,8] [9,0,1]} with {@code pad() == 2}, and
   * the next epoch is the same.
   */
  PAD_WRAP,
  /**
   * Pad the last batch with the first samples of the next epoch's order, and start the next epoch
   * after them, so the padding rows are not seen twice in a row (MXNet CSVIter and ImageRecordIter
   * {@code round_batch = true}): epoch 1 {@code [0,1,2] [3,4,5] [6,7,8] [9,0,1]} with {@code pad()
   * == 2}, epoch 2 {@code [2,3,4] [5,6,7] [8,9,0]} with {@code pad() == 1}, epoch 3 {@code [1,2,3]
   * [4,5,6] [7,8,9]}. Needs at least one batch of samples per shard.
   */
  PAD_CONTINUE,
  /** Drop the incomplete last batch: {@code [0,1,2] [3,4,5] [6,7,8]}. */
  DISCARD,
  /**
   * Carry the leftover samples to the front of the next epoch (NDArrayIter {@code 'roll_over'}):
   * epoch 1 {@code [0,1,2] [3,4,5] [6,7,8]}, epoch 2 {@code [9,0,1] [2,3,4] [5,6,7]}, epoch 3 {@code
   * [8,9,0] [1,2,3] [4,5,6] [7,8,9]}.
   */
  ROLL_OVER,
  /** Deliver a smaller last batch: {@code [0,1,2] [3,4,5] [6,7,8] [9]}. */
  PARTIAL
}
