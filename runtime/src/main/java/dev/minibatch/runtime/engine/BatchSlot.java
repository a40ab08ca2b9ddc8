package dev.minibatch.runtime.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.nd4j.DTypes;
import dev.minibatch.runtime.nd4j.NativeRows;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * One set of full-size batch arrays (one per layout name) with the batch object that shows them:
 * what a {@link RowWriter} writes into. The engine fills {@link #sampleIndices()} for the rows
 * before a writer is called, so a writer can name the sample in its errors.
 *
 * @param <B> the batch type
 */
public final class BatchSlot<B extends AbstractBatch<B>> {
  private final INDArray[] full;
  private final NativeRows[] rows;
  private final long[] indices;
  private final B batch;
  private final int capacity;
  private volatile @Nullable CollateTarget views;
  private INDArray[] partial;
  private int partialRows = -1;
  private int epoch;
  private long firstPosition;

  BatchSlot(BatchLayout layout, B batch) {
    int n = layout.size();
    this.full = new INDArray[n];
    this.rows = new NativeRows[n];
    this.capacity = Math.toIntExact(layout.all().get(0).batchSize());
    for (int i = 0; i < n; i++) {
      DataDesc d = layout.all().get(i);
      full[i] = Nd4j.createUninitialized(DTypes.toNd4j(d.dtype()), d.shape().toLongArray(), 'c');
      rows[i] = NativeRows.of(full[i]);
    }
    this.partial = full;
    this.indices = new long[capacity];
    this.batch = batch;
  }

  /** The number of arrays (layout names). */
  public int arrays() {
    return full.length;
  }

  /** The full-size array at layout position {@code i}. */
  public INDArray array(int i) {
    return full[i];
  }

  /** Row access to the array at layout position {@code i}, for bulk copies. */
  public NativeRows rows(int i) {
    return rows[i];
  }

  /** The sample index of each row ({@code -1} for a row padded with a constant). */
  public long[] sampleIndices() {
    return indices;
  }

  /** The rows of a full batch. */
  public int capacity() {
    return capacity;
  }

  /** The epoch whose batch is being written. */
  public int epoch() {
    return epoch;
  }

  /**
   * The position in the epoch of row 0 of the batch being written: row {@code r} is the epoch's
   * sample number {@code firstPosition() + r}, whatever thread writes it (for per-sample seeds).
   */
  public long firstPosition() {
    return firstPosition;
  }

  /** The typed views of this slot's arrays, made once (writers on several threads may ask at once). */
  CollateTarget views() {
    CollateTarget v = views;
    if (v == null) {
      synchronized (this) {
        v = views;
        if (v == null) {
          INDArray[] arrays = full.clone();
          v = new CollateTarget(arrays);
          views = v;
        }
      }
    }
    return v;
  }

  void begin(int epoch, long firstPosition) {
    this.epoch = epoch;
    this.firstPosition = firstPosition;
  }

  /** Fills rows {@code [from, to)} of every array with its constant and marks them as constant padding. */
  void padConstant(int from, int to, double[] values) {
    if (to <= from) {
      return;
    }
    for (int r = from; r < to; r++) {
      indices[r] = EpochPlan.CONSTANT_PAD;
    }
    for (int i = 0; i < full.length; i++) {
      full[i].get(NDArrayIndex.interval(from, to)).assign(values[i]);
    }
  }

  /**
   * Publishes the slot's first {@code rowCount} rows as the batch, the last {@code pad} of them
   * padding. A short batch shows views of the first rows, made once per distinct size.
   */
  B publish(int rowCount, int pad) {
    for (NativeRows r : rows) {
      r.hostWritten();
    }
    if (rowCount == capacity) {
      batch.reset(full, rowCount, pad, indices);
    } else {
      if (rowCount != partialRows) {
        INDArray[] views = new INDArray[full.length];
        for (int i = 0; i < full.length; i++) {
          views[i] = full[i].get(NDArrayIndex.interval(0, rowCount));
        }
        partial = views;
        partialRows = rowCount;
      }
      batch.reset(partial, rowCount, pad, indices);
    }
    return batch;
  }

  void close() {
    for (INDArray a : full) {
      if (a.closeable()) {
        a.close();
      }
    }
  }

  @Override
  public String toString() {
    return "BatchSlot[" + capacity + " rows x " + full.length + " arrays]";
  }
}
