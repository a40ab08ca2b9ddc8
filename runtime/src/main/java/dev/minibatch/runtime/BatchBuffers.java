package dev.minibatch.runtime;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.nd4j.DTypes;
import dev.minibatch.runtime.nd4j.NativeRows;
import java.util.function.Function;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * A ring of preallocated batch buffers, one array per layout name in each slot, sized for a full
 * batch. Providers fill a slot in place and publish it as a batch; in steady state nothing is
 * allocated per batch. With {@code n} slots, a batch stays intact while the next {@code n - 1} are
 * being filled.
 *
 * @param <B> the batch type the slots publish
 */
public final class BatchBuffers<B extends AbstractBatch<B>> implements AutoCloseable {
  private final Slot<B>[] slots;
  private int next;

  /**
   * Allocates {@code slotCount} slots for {@code layout}, whose descriptions' first axis is the
   * full batch size.
   */
  @SuppressWarnings("unchecked")
  public BatchBuffers(BatchLayout layout, int slotCount, Function<BatchLayout, B> batchFactory) {
    if (slotCount < 1) {
      throw new IllegalArgumentException("need at least one buffer slot, got " + slotCount);
    }
    slots = new Slot[slotCount];
    for (int s = 0; s < slotCount; s++) {
      slots[s] = new Slot<>(layout, batchFactory.apply(layout));
    }
  }

  /** The next slot of the ring, to be filled and published. */
  public Slot<B> next() {
    Slot<B> s = slots[next];
    next = (next + 1) % slots.length;
    return s;
  }

  /** Frees the buffers' native memory now instead of at garbage collection. */
  @Override
  public void close() {
    for (Slot<B> s : slots) {
      s.close();
    }
  }

  /**
   * One set of full-size batch arrays with the batch object that shows them.
   *
   * @param <B> the batch type
   */
  public static final class Slot<B extends AbstractBatch<B>> {
    private final INDArray[] full;
    private final NativeRows[] rows;
    private final long[] indices;
    private final B batch;
    private final int capacity;
    private INDArray[] partial;
    private int partialRows = -1;

    Slot(BatchLayout layout, B batch) {
      int n = layout.size();
      this.full = new INDArray[n];
      this.rows = new NativeRows[n];
      long cap = layout.all().get(0).batchSize();
      this.capacity = Math.toIntExact(cap);
      for (int i = 0; i < n; i++) {
        DataDesc d = layout.all().get(i);
        full[i] = Nd4j.createUninitialized(DTypes.toNd4j(d.dtype()), d.shape().toLongArray(), 'c');
        rows[i] = NativeRows.of(full[i]);
      }
      this.indices = new long[capacity];
      this.batch = batch;
    }

    /** The full-size array at layout position {@code i}. */
    public INDArray array(int i) {
      return full[i];
    }

    /** Row access to the array at layout position {@code i}, for bulk copies. */
    public NativeRows rows(int i) {
      return rows[i];
    }

    /** The sample index of each row, to be filled by the provider. */
    public long[] sampleIndices() {
      return indices;
    }

    /** The rows of a full batch. */
    public int capacity() {
      return capacity;
    }

    /** Fills rows {@code [from, to)} of array {@code i} with {@code value} (constant padding). */
    public void fill(int i, int from, int to, double value) {
      if (to > from) {
        full[i].get(NDArrayIndex.interval(from, to)).assign(value);
      }
    }

    /**
     * Publishes the slot's first {@code rowCount} rows as the batch, the last {@code pad} of them
     * padding. A short batch shows views of the first rows, made once per distinct size.
     */
    public B publish(int rowCount, int pad) {
      for (NativeRows r : rows) {
        r.hostWritten();
      }
      if (rowCount == capacity) {
        batch.reset(full, rowCount, pad, indices);
      } else {
        if (rowCount != partialRows) {
          partial = new INDArray[full.length];
          for (int i = 0; i < full.length; i++) {
            partial[i] = full[i].get(NDArrayIndex.interval(0, rowCount));
          }
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
  }
}
