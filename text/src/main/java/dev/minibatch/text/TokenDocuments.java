package dev.minibatch.text;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Resumable;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The documents a packer reads from a provider's batches: the variable-length INT32 member {@code
 * tokens} of each sample (its own tokens, the rest of its row padding), and as the document's index
 * the member {@code doc} where one is named (a token shard set's), else the sample's index in its
 * source. Rows past a batch's {@code countSamples()} pad it (wrapped or constant samples) and are
 * not documents.
 */
final class TokenDocuments {
  private final BatchProvider<? extends Batch> provider;
  private final String tokens;
  private final @Nullable String doc;

  TokenDocuments(BatchProvider<? extends Batch> provider, String tokens, @Nullable String doc) {
    this.provider = provider;
    this.tokens = tokens;
    this.doc = doc;
    boolean found = provider.provideData().stream().anyMatch(d -> d.name().equals(tokens))
        || provider.provideLabel().stream().anyMatch(d -> d.name().equals(tokens));
    if (!found) {
      throw new IllegalArgumentException("the documents' provider has no member '" + tokens + "' to pack: its members"
          + " are " + provider.provideData().stream().map(d -> d.name()).toList() + " and "
          + provider.provideLabel().stream().map(d -> d.name()).toList());
    }
  }

  /** The next epoch's batches. */
  BatchIterator<? extends Batch> iterator() {
    return provider.iterator();
  }

  /** The provider's state, which must be {@link Resumable}. */
  IterationState saveState() {
    return resumable().saveState();
  }

  /** Restores the provider's state. */
  void restoreState(IterationState state) {
    resumable().restoreState(state);
  }

  private Resumable resumable() {
    if (provider instanceof Resumable r) {
      return r;
    }
    throw new IllegalArgumentException("the documents' provider " + provider.getClass().getSimpleName()
        + " is not Resumable: packed batches save their place as the documents' state");
  }

  /** Adds every document of {@code b} to {@code packer}, in row order. */
  void addTo(Batch b, Packer packer) {
    forEach(b, packer::add);
  }

  /** Adds every document of {@code b} to {@code batcher}, in row order. */
  void addTo(Batch b, BudgetBatcher batcher) {
    forEach(b, (ids, offset, count, document) -> batcher.add(ids, count, document));
  }

  /** Where the documents of a batch go: a row's ids, its first {@code count} of them from {@code offset}. */
  private interface Sink {
    void add(int[] ids, int offset, int count, long document);
  }

  private void forEach(Batch b, Sink sink) {
    INDArray lengths = b.lengths(tokens);
    if (lengths == null) {
      throw new IllegalArgumentException("member '" + tokens + "' has no lengths: packing reads a variable-length"
          + " INT32 member (a VARIABLE axis)");
    }
    int[][] ids = b.get(tokens).toIntMatrix();
    long[] index = doc == null ? null : b.get(doc).toLongVector();
    for (int r = 0; r < b.countSamples(); r++) {
      sink.add(ids[r], 0, lengths.getInt(r), index == null ? b.sampleIndex(r) : index[r]);
    }
  }
}
