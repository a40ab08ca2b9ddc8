package dev.minibatch.runtime.sampling;

import java.util.Arrays;

/**
 * The batches of one epoch as sample indices. Batch {@code j} holds {@code rows(j)} indices, of
 * which the last {@code pad(j)} are padding: indices of wrapped samples, or {@link #CONSTANT_PAD}
 * for rows filled with a constant. Only the last batch can be short or padded.
 *
 * <p>It is also the epoch's cursor: {@link #next()} hands out batch numbers in order and fails once
 * a newer epoch of the same provider has started.
 */
public final class EpochPlan {
  /** The index of a row padded with a constant. */
  public static final int CONSTANT_PAD = -1;

  private final SampleScheduler owner;
  private final long generation;
  private final int epoch;
  private final int[] stream;
  private final int[] carriedIn;
  private final int batchSize;
  private final int batchCount;
  private final int lastRows;
  private final int lastPad;
  private int position;

  EpochPlan(SampleScheduler owner, long generation, int epoch, int[] stream, int[] carriedIn,
      int batchSize, int batchCount, int lastRows, int lastPad, int position) {
    this.owner = owner;
    this.generation = generation;
    this.epoch = epoch;
    this.stream = stream;
    this.carriedIn = carriedIn;
    this.batchSize = batchSize;
    this.batchCount = batchCount;
    this.lastRows = lastRows;
    this.lastPad = lastPad;
    this.position = position;
  }

  /** The epoch number, from 0. */
  public int epoch() {
    return epoch;
  }

  /** The number of batches in this epoch. */
  public int batchCount() {
    return batchCount;
  }

  /** The rows of batch {@code j}, padding included. */
  public int rows(int j) {
    checkBatch(j);
    return j == batchCount - 1 ? lastRows : batchSize;
  }

  /** The padding rows at the end of batch {@code j}. */
  public int pad(int j) {
    checkBatch(j);
    return j == batchCount - 1 ? lastPad : 0;
  }

  /** Copies the sample indices of batch {@code j} into {@code out[0, rows(j))}. */
  public void indices(int j, int[] out) {
    System.arraycopy(stream, j * batchSize, out, 0, rows(j));
  }

  /** The sample index of row {@code row} of batch {@code j}. */
  public int index(int j, int row) {
    if (row < 0 || row >= rows(j)) {
      throw new IndexOutOfBoundsException("row " + row + " of batch " + j + " with " + rows(j) + " rows");
    }
    return stream[j * batchSize + row];
  }

  /** True if the cursor has batches left. */
  public boolean hasNext() {
    owner.checkCurrent(this);
    return position < batchCount;
  }

  /**
   * Advances the cursor and returns the number of the batch to deliver.
   *
   * @throws java.util.NoSuchElementException at the end of the epoch
   * @throws IllegalStateException if a newer epoch of the same provider has started
   */
  public int next() {
    if (!hasNext()) {
      throw new java.util.NoSuchElementException("epoch " + epoch + " has no more batches (" + batchCount + " delivered)");
    }
    return position++;
  }

  /** The number of batches delivered so far. */
  public int position() {
    return position;
  }

  long generation() {
    return generation;
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
      int[] idx = Arrays.copyOfRange(stream, j * batchSize, j * batchSize + rows(j));
      sb.append(' ').append(Arrays.toString(idx));
    }
    return sb.toString();
  }
}
