package dev.minibatch.text;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;

/**
 * The token-budget batches of a documents' provider that they own: what a generated provider's
 * {@code tokenBudget(...)} returns ({@link TokenBudget#batches(dev.minibatch.runtime.Settings,
 * java.util.function.Function, String)}). Each {@link #iterator()} is the provider's next epoch;
 * {@link #close()} closes the provider.
 */
public final class BudgetBatches implements Reader<BudgetBatch>, AutoCloseable {
  private final Reader<BudgetBatch> batches;
  private final BatchProvider<? extends Batch> documents;

  BudgetBatches(Reader<BudgetBatch> batches, BatchProvider<? extends Batch> documents) {
    this.batches = batches;
    this.documents = documents;
  }

  /** The next epoch's batches, in the budget's order. */
  @Override
  public PipelineIterator<BudgetBatch> iterator() {
    return batches.iterator();
  }

  /** Closes the documents' provider: its buffers and reader threads. */
  @Override
  public void close() {
    documents.close();
  }

  @Override
  public String toString() {
    return "BudgetBatches[" + documents + "]";
  }
}
