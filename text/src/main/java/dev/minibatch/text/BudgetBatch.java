package dev.minibatch.text;

import java.util.Arrays;

/**
 * One batch of a {@link TokenBudget}: {@link #rows()} whole documents, each a row padded to the
 * batch's longest, {@link #width()} positions, so that {@code rows() * width()} is at most the
 * budget. The arrays are row-major and flat: position {@code t} of row {@code r} is index {@code r *
 * width() + t}.
 *
 * <p>{@link #ids()} the token ids (the padding id past a row's length), {@link #mask()} 1 on a real
 * token and 0 on padding, {@link #lengths()} each row's real tokens, {@link #documents()} each row's
 * document index (the pass's position of the document in a reader, the {@code doc} column of a token
 * shard set). The arrays are this batch's own, returned without a copy; a batch is never reused.
 */
public final class BudgetBatch {
  private final int rows;
  private final int width;
  private final int[] ids;
  private final int[] mask;
  private final int[] lengths;
  private final long[] documents;
  private final long realTokens;

  BudgetBatch(int rows, int width, int[] ids, int[] mask, int[] lengths, long[] documents, long realTokens) {
    this.rows = rows;
    this.width = width;
    this.ids = ids;
    this.mask = mask;
    this.lengths = lengths;
    this.documents = documents;
    this.realTokens = realTokens;
  }

  /** The number of documents: the rows of this batch, from 1 to the budget. */
  public int rows() {
    return rows;
  }

  /** The positions of every row: the longest document's length, at least 1. */
  public int width() {
    return width;
  }

  /** {@code rows() * width()} token ids, row after row; padding past each row's length. */
  public int[] ids() {
    return ids;
  }

  /** {@code rows() * width()} values: 1 on a real token, 0 on padding. */
  public int[] mask() {
    return mask;
  }

  /** The real tokens of each row. */
  public int[] lengths() {
    return lengths;
  }

  /** The document index of each row. */
  public long[] documents() {
    return documents;
  }

  /** The real tokens of the batch: the sum of {@link #lengths()}. */
  public long realTokens() {
    return realTokens;
  }

  /** All positions of the batch, padding included: {@code rows() * width()}, never over the budget. */
  public long positions() {
    return (long) rows * width;
  }

  @Override
  public String toString() {
    return "BudgetBatch[" + rows + " x " + width + ", " + realTokens + " real tokens, documents "
        + (rows <= 8 ? Arrays.toString(documents) : Arrays.toString(Arrays.copyOf(documents, 8)) + "…") + "]";
  }
}
