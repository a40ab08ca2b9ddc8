package dev.minibatch.runtime.spi;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One batch being written, as a {@link RowWriter} sees it: its full-size arrays (one per layout
 * name, in layout order, each with the batch's rows on its first axis), the source index of the
 * sample of each row, and the epoch and seed its per-sample random draws derive from. The engine
 * fills {@link #sampleIndices()} before it calls a writer, so a writer can name the sample in its
 * errors. Several reader threads may write disjoint rows of one slot at once.
 */
public interface Slot {
  /** The number of arrays (layout names). */
  int arrays();

  /** The full-size array at layout position {@code i}. */
  INDArray array(int i);

  /** The source index of each row's sample ({@code -1} for a row padded with a constant). */
  long[] sampleIndices();

  /** The rows of a full batch. */
  int capacity();

  /**
   * The seed of the epoch whose batch is being written: with {@link #epoch()} and the row's sample
   * (or {@link #firstPosition()}), what a writer's per-sample random draws derive from ({@link
   * Seeds#derive}). It comes down with the batch, so a writer never asks its provider (whose seed a
   * restored state may change).
   */
  long seed();

  /** The epoch whose batch is being written. */
  int epoch();

  /**
   * The position in the epoch of row 0 of the batch being written: row {@code r} is the epoch's
   * sample number {@code firstPosition() + r}, whatever thread writes it (for per-sample seeds).
   */
  long firstPosition();
}
