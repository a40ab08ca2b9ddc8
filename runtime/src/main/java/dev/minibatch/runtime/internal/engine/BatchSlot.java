package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
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
final class BatchSlot<B extends AbstractBatch<B>> implements Slot {
  private final INDArray[] full;
  private final NativeRows[] rows;
  private final @Nullable Sequences sequences;
  /** Per length group: the mask ({@code [capacity, bound]}, float) and lengths ({@code [capacity]}, int) buffers. */
  private final INDArray[] masks;
  private final INDArray[] lengths;
  /** Per length group: the padded length of the batch being written, set before any row is written. */
  private final int[] steps;
  private int bucketKey = -1;
  /** The views of every (rows, steps) published so far. */
  private final java.util.Map<ViewKey, SequenceViews> viewCache = new java.util.HashMap<>();
  private final ViewKey probe = new ViewKey(0, new int[0]);
  /** Per layout position, its length group or -1. */
  private final int[] positionGroups;
  private final long[] indices;
  private final B batch;
  private final int capacity;
  private volatile @Nullable CollateTarget views;
  private INDArray[] partial;
  private int partialRows = -1;
  private long seed;
  private int epoch;
  private long firstPosition;

  BatchSlot(BatchLayout layout, B batch, @Nullable Sequences sequences) {
    int n = layout.size();
    this.full = new INDArray[n];
    this.rows = new NativeRows[n];
    this.sequences = sequences;
    this.capacity = Math.toIntExact(layout.all().get(0).batchSize());
    for (int i = 0; i < n; i++) {
      DataDesc d = layout.all().get(i);
      long[] shape = sequences == null ? d.shape().toLongArray() : sequences.allocation(d, i);
      // Outside any workspace the consumer has open: these buffers live as long as the provider.
      full[i] = HostArrays.allocate(d.dtype(), shape);
      rows[i] = NativeRows.of(full[i]);
    }
    int groups = sequences == null ? 0 : sequences.groups();
    this.masks = new INDArray[groups];
    this.lengths = new INDArray[groups];
    this.steps = new int[groups];
    for (int g = 0; g < groups; g++) {
      masks[g] = HostArrays.allocate(DType.FLOAT32, capacity, sequences.bound(g));
      lengths[g] = HostArrays.allocate(DType.INT32, capacity);
      steps[g] = sequences.bound(g);
    }
    this.positionGroups = new int[n];
    for (int i = 0; i < n; i++) {
      positionGroups[i] = sequences == null ? -1 : sequences.group(i);
    }
    this.partial = full;
    this.indices = new long[capacity];
    this.batch = batch;
  }

  /**
   * {@code slot} as the engine's own slot: every slot a row writer is handed is one.
   *
   * @throws IllegalArgumentException for a slot the engine did not make
   */
  static BatchSlot<?> of(Slot slot) {
    if (slot instanceof BatchSlot<?> b) {
      return b;
    }
    throw new IllegalArgumentException("not a batch slot of the runtime's engine: " + slot.getClass().getName());
  }

  @Override
  public int arrays() {
    return full.length;
  }

  /** The full-size array at layout position {@code i}. */
  @Override
  public INDArray array(int i) {
    return full[i];
  }

  /** Row access to the array at layout position {@code i}, for bulk copies. */
  NativeRows rows(int i) {
    return rows[i];
  }

  /** Row access to every array, in layout order (the slot's own array: callers must not change it). */
  NativeRows[] allRows() {
    return rows;
  }

  /** The sample index of each row ({@code -1} for a row padded with a constant). */
  @Override
  public long[] sampleIndices() {
    return indices;
  }

  /** The rows of a full batch. */
  @Override
  public int capacity() {
    return capacity;
  }

  /**
   * The seed of the epoch whose batch is being written: with {@link #epoch()} and the row's sample,
   * what a writer's per-sample random draws derive from. It comes down with the batch, so a writer
   * never asks its provider (whose seed a restored state may change).
   */
  @Override
  public long seed() {
    return seed;
  }

  /** The epoch whose batch is being written. */
  @Override
  public int epoch() {
    return epoch;
  }

  /**
   * The position in the epoch of row 0 of the batch being written: row {@code r} is the epoch's
   * sample number {@code firstPosition() + r}, whatever thread writes it (for per-sample seeds).
   */
  @Override
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
          v = new CollateTarget(arrays, masks, lengths, this);
          views = v;
        }
      }
    }
    return v;
  }

  void begin(long seed, int epoch, long firstPosition) {
    this.seed = seed;
    this.epoch = epoch;
    this.firstPosition = firstPosition;
  }

  /**
   * {@link #begin(long, int, long)} for a batch with variable-length members: its padded length per group
   * ({@link Sequences#steps}) and its bucket key (-1 without buckets). Every writer of the batch
   * sets the same values before writing rows.
   */
  void begin(long seed, int epoch, long firstPosition, int[] batchSteps, int bucketKey) {
    begin(seed, epoch, firstPosition);
    System.arraycopy(batchSteps, 0, steps, 0, steps.length);
    this.bucketKey = bucketKey;
  }

  /** The padded length of length group {@code g} in the batch being written. */
  int steps(int g) {
    return steps[g];
  }

  /**
   * A view of row {@code row} of the array at layout position {@code i} at the current steps (for
   * INDArray members with a variable axis; arrays without one get their plain row).
   */
  INDArray rowView(int i, int row) {
    if (sequences == null || sequences.axis(i) < 0) {
      return full[i].get(NDArrayIndex.point(row));
    }
    long[] shape = stepShape(i, 1);
    long rowLength = 1;
    for (int a = 1; a < shape.length; a++) {
      rowLength *= shape[a];
    }
    long[] sampleShape = java.util.Arrays.copyOfRange(shape, 1, shape.length);
    return Nd4j.create(full[i].data(), sampleShape, Nd4j.getStrides(sampleShape, 'c'), row * rowLength, 'c');
  }

  /** The shape of {@code rowCount} rows of position {@code i} at the current steps. */
  private long[] stepShape(int i, long rowCount) {
    long[] shape = full[i].shape().clone();
    shape[0] = rowCount;
    Sequences q = sequences;
    if (q != null && q.axis(i) >= 0) {
      shape[q.axis(i) + 1] = steps[q.group(i)];
    }
    return shape;
  }

  /** A view of the first elements of {@code buffer} as a c-ordered array of {@code shape}. */
  private static INDArray prefix(INDArray buffer, long[] shape) {
    return Nd4j.create(buffer.data(), shape, Nd4j.getStrides(shape, 'c'), 0, 'c');
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
      INDArray rowsOf = sequences == null || sequences.axis(i) < 0 ? full[i] : prefix(full[i], stepShape(i, capacity));
      rowsOf.get(NDArrayIndex.interval(from, to)).assign(values[i]);
    }
    // A constant row holds no sample: length 0, mask 0.
    for (int g = 0; g < masks.length; g++) {
      prefix(masks[g], new long[] {capacity, steps[g]}).get(NDArrayIndex.interval(from, to)).assign(0);
      lengths[g].get(NDArrayIndex.interval(from, to)).assign(0);
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
    if (sequences != null) {
      return publishSequences(rowCount, pad);
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

  /** The arrays a batch of {@code rows} rows at the current steps shows: views of the buffers' first elements. */
  private SequenceViews sequenceViews(int rowCount) {
    INDArray[] arrays = new INDArray[full.length];
    for (int i = 0; i < full.length; i++) {
      INDArray a = sequences != null && sequences.axis(i) >= 0 ? prefix(full[i], stepShape(i, capacity)) : full[i];
      arrays[i] = rowCount == capacity ? a : a.get(NDArrayIndex.interval(0, rowCount));
    }
    INDArray[] maskArrays = new INDArray[masks.length];
    INDArray[] lengthArrays = new INDArray[masks.length];
    for (int g = 0; g < masks.length; g++) {
      INDArray m = prefix(masks[g], new long[] {capacity, steps[g]});
      maskArrays[g] = rowCount == capacity ? m : m.get(NDArrayIndex.interval(0, rowCount));
      lengthArrays[g] = rowCount == capacity ? lengths[g] : lengths[g].get(NDArrayIndex.interval(0, rowCount));
    }
    return new SequenceViews(arrays, maskArrays, lengthArrays);
  }

  /** The arrays of one (rows, steps). */
  private record SequenceViews(INDArray[] arrays, INDArray[] masks, INDArray[] lengths) {}

  /** A (rows, steps) key; the slot's probe is reused for look-ups, so a hit allocates nothing. */
  private static final class ViewKey {
    private int rows;
    private int[] steps;

    ViewKey(int rows, int[] steps) {
      this.rows = rows;
      this.steps = steps;
    }

    void set(int rows, int[] steps) {
      this.rows = rows;
      this.steps = steps;
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof ViewKey k && k.rows == rows && java.util.Arrays.equals(k.steps, steps);
    }

    @Override
    public int hashCode() {
      return 31 * rows + java.util.Arrays.hashCode(steps);
    }
  }

  /** {@link #publish} for a batch with variable-length members: views at this batch's steps, with masks and lengths. */
  private B publishSequences(int rowCount, int pad) {
    // Views are made once per distinct (rows, steps) and kept: a bucketed or padded epoch meets few.
    probe.set(rowCount, steps);
    SequenceViews v = viewCache.get(probe);
    if (v == null) {
      v = sequenceViews(rowCount);
      viewCache.put(new ViewKey(rowCount, steps.clone()), v);
    }
    INDArray[] arrays = v.arrays();
    INDArray[] maskArrays = v.masks();
    INDArray[] lengthArrays = v.lengths();
    // The padding of the rows that hold samples (padding rows are all padding, and not counted).
    long real = 0;
    long padded = 0;
    java.nio.IntBuffer[] lengthViews = views().lengthViews();
    int samples = rowCount - pad;
    for (int g = 0; g < masks.length; g++) {
      java.nio.IntBuffer l = lengthViews[g];
      for (int r = 0; r < samples; r++) {
        int len = l.get(r);
        real += len;
        padded += steps[g] - len;
      }
    }
    batch.reset(arrays, rowCount, pad, indices);
    batch.resetSequences(maskArrays, lengthArrays, positionGroups, bucketKey, real, padded);
    return batch;
  }

  void close() {
    for (INDArray[] group : new INDArray[][] {full, masks, lengths}) {
      for (INDArray a : group) {
        if (a.closeable()) {
          a.close();
        }
      }
    }
  }

  @Override
  public String toString() {
    return "BatchSlot[" + capacity + " rows x " + full.length + " arrays]";
  }
}
