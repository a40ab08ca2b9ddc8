package dev.minibatch.runtime.engine;

import java.util.Arrays;

/**
 * The batches of one epoch as sample indices. Batch {@code j} holds {@code rows(j)} indices, of
 * which the last {@code pad(j)} are padding: indices of wrapped samples, or {@link #CONSTANT_PAD}
 * for rows filled with a constant. Only the last batch can be short or padded. It also counts the
 * batches delivered (its position).
 */
final class EpochPlan {
  /** The index of a row padded with a constant. */
  static final int CONSTANT_PAD = -1;

  private final int epoch;
  private final int[] stream;
  private final int[] carriedIn;
  private final int batchSize;
  private final int batchCount;
  private final int lastRows;
  private final int lastPad;
  private int position;

  EpochPlan(int epoch, int[] stream, int[] carriedIn, int batchSize, int batchCount, int lastRows, int lastPad,
      int position) {
    this.epoch = epoch;
    this.stream = stream;
    this.carriedIn = carriedIn;
    this.batchSize = batchSize;
    this.batchCount = batchCount;
    this.lastRows = lastRows;
    this.lastPad = lastPad;
    this.position = position;
  }

  int epoch() {
    return epoch;
  }

  int batchCount() {
    return batchCount;
  }

  int batchSize() {
    return batchSize;
  }

  /** The rows of batch {@code j}, padding included. */
  int rows(int j) {
    checkBatch(j);
    return j == batchCount - 1 ? lastRows : batchSize;
  }

  /** The padding rows at the end of batch {@code j}. */
  int pad(int j) {
    checkBatch(j);
    return j == batchCount - 1 ? lastPad : 0;
  }

  /** The rows of batch {@code j} that hold samples (not a constant). */
  int sampleRows(int j) {
    int rows = rows(j);
    int pad = pad(j);
    return pad > 0 && stream[j * batchSize + rows - 1] == CONSTANT_PAD ? rows - pad : rows;
  }

  /** Copies the sample indices of batch {@code j} into {@code out[0, rows(j))}. Thread-safe. */
  void indices(int j, int[] out) {
    System.arraycopy(stream, j * batchSize, out, 0, rows(j));
  }

  /** The number of batches delivered so far (or the restored position). */
  int position() {
    return position;
  }

  /** Counts one more delivered batch. */
  void delivered() {
    position++;
  }

  /** Maps a stream entry to a sample index. */
  interface SampleMap {
    /**
     * The sample at stream entry {@code at}, which holds {@code position}; {@code padding} is true
     * for the padding rows of the last batch.
     */
    int map(int at, int position, boolean padding);
  }

  /** Replaces every entry but constant padding by {@code map}'s sample index (drawn orders). */
  void mapSamples(SampleMap map) {
    int end = batchCount == 0 ? 0 : (batchCount - 1) * batchSize + lastRows;
    int padFrom = end - lastPad;
    for (int at = 0; at < end; at++) {
      int p = stream[at];
      if (p != CONSTANT_PAD) {
        stream[at] = map.map(at, p, at >= padFrom);
      }
    }
  }

  int[] carriedIn() {
    return carriedIn;
  }

  private void checkBatch(int j) {
    if (j < 0 || j >= batchCount) {
      throw new IndexOutOfBoundsException("batch " + j + " of an epoch with " + batchCount + " batches");
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("epoch ").append(epoch).append(':');
    for (int j = 0; j < batchCount; j++) {
      sb.append(' ').append(Arrays.toString(Arrays.copyOfRange(stream, j * batchSize, j * batchSize + rows(j))));
    }
    return sb.toString();
  }
}
