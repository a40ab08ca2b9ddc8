package dev.minibatch.text;

import java.util.Arrays;

/**
 * One packed row of exactly {@link #length()} positions: the token ids of one or more documents (or
 * pieces of them), each a segment, then padding. Made by a {@link Packer} ({@link Packer#next}) or
 * by the readers of {@link Packing}.
 *
 * <p>Per position {@code i}: {@link #ids()} the token id (the padding id past the real tokens);
 * {@link #segmentIds()} 1, 2, 3, … for the row's first, second, third segment, 0 for padding;
 * {@link #positionIds()} the position within its segment, from 0 at each segment's first token (0
 * for padding); {@link #lossMask()} 1 on every real token (separators included), 0 on padding; with
 * {@link Packing.Builder#shiftLabels(boolean) shiftLabels}, {@link #labels()} the next token of the
 * same document, or {@link Packing#IGNORE} where there is none (a document's last token, padding).
 *
 * <p>The arrays are this row's own and are returned without a copy. A row from a {@link Packing}
 * reader is never reused; a row handed to {@link Packer#next} is overwritten by the next call.
 */
public final class PackedRow {
  private final int[] ids;
  private final int[] segmentIds;
  private final int[] positionIds;
  private final int[] lossMask;
  private final int[] labels;
  private final int[] boundaries;
  private final long[] documents;
  private final int[] offsets;
  private int segments;
  private int real;
  private boolean hasLabels;

  /**
   * An empty row of {@code contextLength} positions, to be filled by {@link Packer#next}.
   *
   * @throws IllegalArgumentException if {@code contextLength} is not positive
   */
  public PackedRow(int contextLength) {
    if (contextLength <= 0) {
      throw new IllegalArgumentException("contextLength must be > 0, got " + contextLength);
    }
    ids = new int[contextLength];
    segmentIds = new int[contextLength];
    positionIds = new int[contextLength];
    lossMask = new int[contextLength];
    labels = new int[contextLength];
    boundaries = new int[contextLength + 1];
    documents = new long[contextLength];
    offsets = new int[contextLength];
  }

  /** Fills this row from a packer's row; the rest of the positions become padding. */
  void fill(int[] rowIds, int[] rowLabels, int used, int count, int[] ends, long[] docs, int[] starts, int padding,
      boolean withLabels) {
    int length = ids.length;
    System.arraycopy(rowIds, 0, ids, 0, used);
    Arrays.fill(ids, used, length, padding);
    Arrays.fill(lossMask, 0, used, 1);
    Arrays.fill(lossMask, used, length, 0);
    boundaries[0] = 0;
    int start = 0;
    for (int s = 0; s < count; s++) {
      int end = ends[s];
      Arrays.fill(segmentIds, start, end, s + 1);
      for (int i = start; i < end; i++) {
        positionIds[i] = i - start;
      }
      boundaries[s + 1] = end;
      start = end;
    }
    Arrays.fill(segmentIds, used, length, 0);
    Arrays.fill(positionIds, used, length, 0);
    System.arraycopy(docs, 0, documents, 0, count);
    System.arraycopy(starts, 0, offsets, 0, count);
    hasLabels = withLabels;
    if (withLabels) {
      System.arraycopy(rowLabels, 0, labels, 0, used);
      Arrays.fill(labels, used, length, Packing.IGNORE);
    }
    segments = count;
    real = used;
  }

  /** The context length: the number of positions of every array. */
  public int length() {
    return ids.length;
  }

  /** The token ids, the padding id after the real tokens. */
  public int[] ids() {
    return ids;
  }

  /** The segment of each position: 1 for the row's first segment, 2 for its second, …; 0 for padding. */
  public int[] segmentIds() {
    return segmentIds;
  }

  /** The position of each token within its segment, from 0; 0 for padding. */
  public int[] positionIds() {
    return positionIds;
  }

  /** 1 on the real tokens (separators included), 0 on padding. */
  public int[] lossMask() {
    return lossMask;
  }

  /**
   * The labels shifted by one: at {@code i}, the token that follows {@code ids()[i]} in the same
   * document (also when it lies in the next row), or {@link Packing#IGNORE} where none does.
   *
   * @throws IllegalStateException if the packing was not built with {@code shiftLabels(true)}
   */
  public int[] labels() {
    if (!hasLabels) {
      throw new IllegalStateException("no labels in this row: build the packing with shiftLabels(true)");
    }
    return labels;
  }

  /** The number of segments: documents or pieces of documents in this row. */
  public int segments() {
    return segments;
  }

  /**
   * The segments' offsets, {@code cu_seqlens}-style: {@code segments() + 1} values, from 0 to {@link
   * #realTokens()}; segment {@code s} (segment id {@code s + 1}) is positions {@code [b[s], b[s + 1])}.
   * The padding, if any, lies after the last offset. A new array each call: {@link #boundary(int)}
   * reads one without allocating.
   */
  public int[] boundaries() {
    return Arrays.copyOf(boundaries, segments + 1);
  }

  /**
   * Offset {@code i} of {@link #boundaries()}.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i <= segments()}
   */
  public int boundary(int i) {
    java.util.Objects.checkIndex(i, segments + 1);
    return boundaries[i];
  }

  /**
   * The document that segment {@code s} (0-based; segment id {@code s + 1}) comes from: its index in
   * the stream of documents, or the {@code doc} column of a token shard set.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= s < segments()}
   */
  public long document(int s) {
    java.util.Objects.checkIndex(s, segments);
    return documents[s];
  }

  /**
   * Where segment {@code s} starts in its document: 0 for a whole document or its first piece, else
   * the number of its tokens in earlier pieces.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= s < segments()}
   */
  public int documentOffset(int s) {
    java.util.Objects.checkIndex(s, segments);
    return offsets[s];
  }

  /** The real tokens (separators included): the positions before the padding. */
  public int realTokens() {
    return real;
  }

  @Override
  public String toString() {
    return "PackedRow[" + segments + " segments, " + real + " of " + ids.length + " positions]";
  }
}
