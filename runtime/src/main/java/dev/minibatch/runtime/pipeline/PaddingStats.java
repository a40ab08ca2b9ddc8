package dev.minibatch.runtime.pipeline;

/**
 * How much of an epoch's variable-length data is padding: the steps of the samples' variable axes
 * that hold data, and those padded to the batch's length (summed over length groups; rows that
 * pad a batch are not counted, their count is the batches' {@code pad()}).
 *
 * @param realSteps the steps that hold data
 * @param paddedSteps the steps that hold padding
 */
public record PaddingStats(long realSteps, long paddedSteps) {
  /** No variable-length members. */
  public static final PaddingStats NONE = new PaddingStats(0, 0);

  /** Padded steps per real step (0 without real steps): what bucketing brings down. */
  public double ratio() {
    return realSteps == 0 ? 0 : paddedSteps / (double) realSteps;
  }
}
