package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSampleBudgetException;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import java.util.ArrayList;
import java.util.List;

/**
 * One epoch's account of bad samples: per slot, the rows the batch written there keeps and the bad
 * samples met while writing it (recorded by whoever wrote it); and, in batch order, those of the
 * batches delivered, checked against the budget. Counting at delivery, in batch order, makes the
 * batch that goes over the budget the same for any number of reader threads.
 *
 * <p>A slot's entries are written before the batch is handed to the consumer and read after it took
 * it, so the hand-off orders them; the delivered list is read by stats from any thread.
 */
final class BadSampleLedger {
  private final BadSamples policy;
  private final int budget;
  private final int epoch;
  private final int[] rows;
  private final int[] pads;
  private final List<List<BadSample>> bad;
  private final List<BadSample> delivered = new ArrayList<>();

  /** A ledger for epoch {@code epoch} visiting {@code samples} samples, over a ring of {@code slots}. */
  BadSampleLedger(BadSamples policy, int epoch, int samples, int slots) {
    this.policy = policy;
    this.budget = policy.budget(samples);
    this.epoch = epoch;
    this.rows = new int[slots];
    this.pads = new int[slots];
    this.bad = new ArrayList<>(slots);
    for (int s = 0; s < slots; s++) {
      bad.add(List.of());
    }
  }

  BadSamples policy() {
    return policy;
  }

  int epoch() {
    return epoch;
  }

  /** The most bad samples the epoch may meet. */
  int budget() {
    return budget;
  }

  /** Records what the batch written into {@code slot} keeps: {@code rowCount} rows, the last {@code pad} padding. */
  void written(int slot, int rowCount, int pad, List<BadSample> badSamples) {
    rows[slot] = rowCount;
    pads[slot] = pad;
    bad.set(slot, badSamples);
  }

  int rows(int slot) {
    return rows[slot];
  }

  int pad(int slot) {
    return pads[slot];
  }

  /**
   * Counts the bad samples of the batch in {@code slot}, about to be delivered.
   *
   * @throws BadSampleBudgetException if they take the epoch over its budget
   */
  void deliver(int slot) {
    List<BadSample> b = bad.get(slot);
    if (b.isEmpty()) {
      return;
    }
    List<BadSample> all;
    synchronized (this) {
      delivered.addAll(b);
      if (delivered.size() <= budget) {
        return;
      }
      all = List.copyOf(delivered);
    }
    throw new BadSampleBudgetException(epoch, policy.toString(), budget, all);
  }

  /** The bad samples of the batches delivered so far, in batch order. */
  synchronized List<BadSample> delivered() {
    return delivered.isEmpty() ? List.of() : List.copyOf(delivered);
  }
}
