package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.ProviderBuilder.BadSamples.Action;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSampleBudgetException;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Writes one planned batch into a slot — its sample indices, its sequences' lengths, its rows
 * through the provider's {@link RowWriter}, its constant padding — for the consumer's thread and for
 * every reader thread alike; and, when a row cannot be written, applies the provider's bad-sample
 * policy.
 *
 * <p>A writer writes a range of rows in one call, so a failure does not say which row failed: on
 * that cold path the batch is written again row by row. A policy that fails throws what the first
 * failing row throws alone, so the sample named is the batch's first bad one even when the writer
 * read ahead and met a later bad sample first. A policy that skips then writes the batch
 * again without the bad samples (so sequence lengths are those of the samples kept); one that
 * replaces tries {@code index + 1, index + 2, ...} (wrapping) in the bad row until one writes, then
 * writes the batch again with the replacements. Both depend on the samples alone, never on which
 * thread wrote what, so the batches are the same for any number of reader threads.
 */
final class BatchWriter {
  private final RowWriter rows;
  private final double[] padValues;
  private final @Nullable Sequences sequences;
  private final BadSamples policy;
  private final int numSamples;

  BatchWriter(RowWriter rows, double[] padValues, @Nullable Sequences sequences, BadSamples policy,
      int numSamples) {
    this.rows = rows;
    this.padValues = padValues;
    this.sequences = sequences;
    this.policy = policy;
    this.numSamples = numSamples;
  }

  /** A ledger for {@code plan}'s epoch over {@code slots} slots, with this writer's policy. */
  BadSampleLedger ledger(EpochPlan plan, int samples, int slots) {
    return new BadSampleLedger(policy, plan.epoch(), samples, slots);
  }

  /**
   * Writes batch {@code j} of {@code plan} into {@code slot} (slot number {@code slotIndex} of the
   * ring) and records in {@code ledger} the rows it keeps; {@code idx} and {@code steps} are the
   * caller's buffers.
   *
   * @throws RuntimeException what the row writer threw, when the policy fails (or the thread was
   *     interrupted, or the failure is not one sample's)
   */
  void write(EpochPlan plan, int j, BatchSlot<?> slot, int slotIndex, int[] idx, int[] steps, BadSampleLedger ledger) {
    int rowCount = plan.rows(j);
    int samples = plan.sampleRows(j);
    int pad = plan.pad(j);
    plan.indices(j, idx);
    try {
      fill(plan, j, slot, idx, samples, rowCount, steps);
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw e;
      }
      if (policy.action() == Action.FAIL) {
        RowFailure first = samples > 1 ? firstFailingRow(idx, samples, slot) : null;
        throw first == null ? e : first.error();
      }
      recover(e, plan, j, slot, slotIndex, idx, samples, rowCount, pad, steps, ledger);
      return;
    }
    ledger.written(slotIndex, rowCount, pad, List.of());
  }

  /**
   * The sample whose row failed with {@code t} in batch {@code j}, written again row by row (an
   * Error is not retried; if no row fails again, the batch's first sample is named).
   */
  long failingSample(Throwable t, EpochPlan plan, int j, BatchSlot<?> slot, int[] idx) {
    int samples = plan.sampleRows(j);
    if (samples == 0) {
      return StageFailedException.NO_SAMPLE;
    }
    if (samples == 1 || t instanceof Error) {
      return idx[0];
    }
    RowFailure f = firstFailingRow(idx, samples, slot);
    return idx[f == null ? 0 : f.row()];
  }

  /** Row {@code row} of a batch failed when written alone, with {@code error}. */
  private record RowFailure(int row, RuntimeException error) {}

  /**
   * The first of rows {@code [0, samples)} that fails when written alone, or null if none does
   * (the batch's failure was not one row's). A row writer may read ahead (the generated collate
   * reads later samples while it copies an earlier row), so what failed the whole batch can be a
   * later row's failure.
   */
  private @Nullable RowFailure firstFailingRow(int[] idx, int samples, BatchSlot<?> slot) {
    for (int r = 0; r < samples; r++) {
      RuntimeException e = writeRow(idx, r, slot);
      if (e != null) {
        return new RowFailure(r, e);
      }
    }
    return null;
  }

  /** Writes the rows of samples {@code idx[0, samples)} and pads the rest up to {@code rowCount}. */
  private void fill(EpochPlan plan, int j, BatchSlot<?> slot, int[] idx, int samples, int rowCount, int[] steps) {
    long[] sampleIndices = slot.sampleIndices();
    long[] source = plan.sourceIndices();
    if (source == null) {
      for (int r = 0; r < samples; r++) {
        sampleIndices[r] = idx[r];
      }
    } else {
      // A streaming epoch's entries are window positions; the slot names the samples by source position.
      for (int r = 0; r < samples; r++) {
        sampleIndices[r] = source[idx[r]];
      }
    }
    Sequences.begin(sequences, slot, plan, j, idx, samples, steps);
    if (samples > 0) {
      rows.write(idx, 0, samples, slot);
    }
    slot.padConstant(samples, rowCount, padValues);
  }

  /** Row {@code r} written alone: null, or why it failed. */
  private @Nullable RuntimeException writeRow(int[] idx, int r, BatchSlot<?> slot) {
    try {
      rows.write(idx, r, r + 1, slot);
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  private void recover(RuntimeException first, EpochPlan plan, int j, BatchSlot<?> slot, int slotIndex, int[] idx,
      int samples, int rowCount, int pad, int[] steps, BadSampleLedger ledger) {
    List<BadSample> bad = new ArrayList<>();
    int kept = 0;
    int badInPad = 0;
    for (int r = 0; r < samples; r++) {
      RuntimeException e = writeRow(idx, r, slot);
      if (e == null) {
        idx[kept++] = idx[r];
        continue;
      }
      if (Thread.currentThread().isInterrupted()) {
        throw first;
      }
      if (policy.action() == Action.SKIP) {
        bad.add(new BadSample(plan.epoch(), idx[r], -1, e));
        badInPad += r >= rowCount - pad ? 1 : 0;
      } else {
        int sample = idx[r];
        int replacement = replacement(idx, r, slot, ledger);
        bad.add(new BadSample(plan.epoch(), sample, replacement, e));
        idx[kept++] = replacement;
      }
    }
    if (bad.isEmpty()) {
      // The range failed but no row alone does: not one sample's failure.
      throw first;
    }
    int lost = samples - kept;
    fill(plan, j, slot, idx, kept, rowCount - lost, steps);
    ledger.written(slotIndex, rowCount - lost, pad - badInPad, bad);
  }

  /**
   * The first of {@code idx[r] + 1, + 2, ...} (wrapping) that writes into row {@code r}, trying at
   * most one more than the epoch's budget.
   *
   * @throws BadSampleBudgetException if none of them writes
   */
  private int replacement(int[] idx, int r, BatchSlot<?> slot, BadSampleLedger ledger) {
    int bad = idx[r];
    List<BadSample> failed = new ArrayList<>();
    int tries = (int) Math.min(numSamples - 1L, ledger.budget() + 1L);
    for (int k = 1; k <= tries; k++) {
      int candidate = (int) ((bad + (long) k) % numSamples);
      idx[r] = candidate;
      RuntimeException e = writeRow(idx, r, slot);
      if (e == null) {
        return candidate;
      }
      failed.add(new BadSample(ledger.epoch(), candidate, -1, e));
    }
    idx[r] = bad;
    throw new BadSampleBudgetException(ledger.epoch(), ledger.policy().toString(), ledger.budget(), failed);
  }
}
