package dev.minibatch.runtime.pipeline;

import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import java.util.List;

/**
 * An epoch met more bad samples than its {@link dev.minibatch.runtime.BadSamples} budget allows:
 * thrown by the iterator in place of the batch that went over it. The message names the policy,
 * the budget and the first bad samples; {@link #badSamples()} lists them all, the last one the
 * sample that went over.
 */
public final class BadSampleBudgetException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final int LISTED = 5;

  private final transient List<BadSample> badSamples;

  /**
   * An exception for epoch {@code epoch} of a provider with policy {@code policy} (e.g. {@code
   * "skip(3)"}) and a budget of {@code budget} samples, having met {@code badSamples}.
   */
  public BadSampleBudgetException(int epoch, String policy, int budget, List<BadSample> badSamples) {
    super(message(epoch, policy, budget, badSamples), badSamples.isEmpty() ? null
        : badSamples.get(badSamples.size() - 1).cause());
    this.badSamples = List.copyOf(badSamples);
  }

  private static String message(int epoch, String policy, int budget, List<BadSample> bad) {
    StringBuilder s = new StringBuilder("epoch ").append(epoch).append(": ").append(bad.size())
        .append(" bad samples, over the budget of ").append(budget).append(" (badSamples(BadSamples.").append(policy)
        .append(")); raise the budget or fix the data. ");
    for (int k = 0; k < Math.min(LISTED, bad.size()); k++) {
      BadSample b = bad.get(k);
      s.append(k == 0 ? "" : "; ").append("sample ").append(b.sample()).append(": ").append(b.cause().getMessage());
    }
    if (bad.size() > LISTED) {
      s.append("; and ").append(bad.size() - LISTED).append(" more");
    }
    return s.toString();
  }

  /** Every bad sample the epoch met up to the one that went over the budget, in batch order. */
  public List<BadSample> badSamples() {
    return badSamples;
  }
}
