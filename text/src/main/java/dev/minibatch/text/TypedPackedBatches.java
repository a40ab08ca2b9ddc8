package dev.minibatch.text;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import java.util.function.Function;

/**
 * {@link PackedBatches} as a generated sample's typed packed batches (for a sample {@code Line},
 * {@code LinePackedBatch}, with getters named after the packed member): what a generated provider's
 * {@code packed(...)} returns. They own the documents' provider: {@link #close()} closes it. The
 * batches, their order, dealing and state are those of {@link #packedBatches()}.
 *
 * @param <B> the typed batch
 */
public final class TypedPackedBatches<B> implements Iterable<B>, Resumable, AutoCloseable {
  private final PackedBatches batches;
  private final BatchProvider<? extends Batch> documents;
  private final Function<PackedBatch, ? extends B> typed;

  TypedPackedBatches(PackedBatches batches, BatchProvider<? extends Batch> documents,
      Function<PackedBatch, ? extends B> typed) {
    this.batches = batches;
    this.documents = documents;
    this.typed = typed;
  }

  /** The untyped batches these wrap: the rule, the dealing and the state are theirs. */
  public PackedBatches packedBatches() {
    return batches;
  }

  /** Rows per global batch: the builder's batch size. */
  public int rowsPerBatch() {
    return batches.rowsPerBatch();
  }

  /** The next epoch's batches for this trainer, or the rest of a restored one: {@link PackedBatches#iterator()}. */
  @Override
  public PipelineIterator<B> iterator() {
    PipelineIterator<PackedBatch> it = batches.iterator();
    return new PipelineIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public B next() {
        return typed.apply(it.next());
      }

      @Override
      public PipelineStats stats() {
        return it.stats();
      }

      @Override
      public void close() {
        it.close();
      }
    };
  }

  /** {@link PackedBatches#saveState()}: restores under any trainer count. */
  @Override
  public IterationState saveState() {
    return batches.saveState();
  }

  /** {@link PackedBatches#restoreState(IterationState)}. */
  @Override
  public void restoreState(IterationState state) {
    batches.restoreState(state);
  }

  /** Closes the documents' provider: its buffers and reader threads. */
  @Override
  public void close() {
    documents.close();
  }

  @Override
  public String toString() {
    return batches.toString();
  }
}
