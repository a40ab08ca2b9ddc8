package dev.minibatch.runtime.sampling;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import java.util.NoSuchElementException;

/**
 * The iterator of one planned epoch: walks an {@link EpochPlan}'s batches in order and asks the
 * provider to fill each. Random-access providers (arrays, files, generated lists) differ only in
 * how they fill a batch, so they share this.
 *
 * @param <B> the batch type
 */
public final class PlannedEpoch<B extends Batch> implements BatchIterator<B> {
  /**
   * Fills batch {@code batch} of {@code plan} into a buffer and returns it.
   *
   * @param <B> the batch type
   */
  @FunctionalInterface
  public interface Filler<B> {
    /** The filled batch. */
    B fill(EpochPlan plan, int batch);
  }

  private final EpochPlan plan;
  private final Runnable checkOpen;
  private final Filler<B> filler;

  /**
   * An iterator over {@code plan}.
   *
   * @param checkOpen throws if the provider was closed
   * @param filler fills one batch
   */
  public PlannedEpoch(EpochPlan plan, Runnable checkOpen, Filler<B> filler) {
    this.plan = plan;
    this.checkOpen = checkOpen;
    this.filler = filler;
  }

  @Override
  public boolean hasNext() {
    checkOpen.run();
    return plan.hasNext();
  }

  @Override
  public B next() {
    if (!hasNext()) {
      throw new NoSuchElementException("epoch " + plan.epoch() + " is over");
    }
    return filler.fill(plan, plan.next());
  }

  @Override
  public void close() {
    // Nothing to release: the buffers belong to the provider.
  }
}
