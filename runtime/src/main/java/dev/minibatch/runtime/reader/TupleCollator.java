package dev.minibatch.runtime.reader;

import dev.minibatch.DType;
import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.internal.engine.Collate;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.internal.engine.SampleWriter;
import dev.minibatch.runtime.reader.Readers.Tuple;
import dev.minibatch.shape.Shape;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Copies the fed columns of a tuple into one row of the batch buffers. Primitive arrays whose
 * element type matches the batch's go in with one bulk copy per innermost row; other combinations
 * convert element by element.
 */
final class TupleCollator implements SampleWriter<Tuple> {
  private final FeedingProvider.Feed[] feeds;
  private final Shape[] shapes;
  private final DType[] dtypes;
  private final int[] counts;

  TupleCollator(List<FeedingProvider.Feed> feeds) {
    this.feeds = feeds.toArray(new FeedingProvider.Feed[0]);
    this.shapes = new Shape[this.feeds.length];
    this.dtypes = new DType[this.feeds.length];
    this.counts = new int[this.feeds.length];
    for (int i = 0; i < this.feeds.length; i++) {
      shapes[i] = this.feeds[i].shape();
      dtypes[i] = this.feeds[i].dtype();
      counts[i] = Math.toIntExact(shapes[i].elementCount());
    }
  }

  @Override
  public void write(List<? extends Tuple> samples, int[] positions, int from, int to, Slot slot) {
    long[] sampleIndices = slot.sampleIndices();
    CollateTarget target = CollateTarget.of(slot);
    for (int r = from; r < to; r++) {
      Tuple t = samples.get(positions[r]);
      if (t == null) {
        throw Collate.nullSample(sampleIndices[r]);
      }
      collateOne(t, sampleIndices[r], target, r);
    }
  }

  private void collateOne(Tuple sample, long sampleIndex, CollateTarget target, int row) {
    for (int i = 0; i < feeds.length; i++) {
      FeedingProvider.Feed f = feeds[i];
      if (f.column >= sample.size()) {
        throw new IllegalArgumentException("'" + f.name + "' is fed from column " + f.column + " but sample "
            + sampleIndex + " has " + sample.size() + " columns: " + sample);
      }
      Object v = sample.get(f.column);
      if (v == null) {
        throw Collate.nullMember(f.name, sampleIndex);
      }
      int offset = row * counts[i];
      if (v instanceof INDArray) {
        Collate.indarray(f.name, sampleIndex, shapes[i], (INDArray) v, target.array(i), row);
      } else if (v instanceof Number || v instanceof Boolean) {
        if (counts[i] != 1) {
          throw Collate.mismatch(f.name, sampleIndex, shapes[i], v);
        }
        write(target, i, offset, v, 0);
      } else if (v.getClass().isArray()) {
        copyArray(f.name, sampleIndex, i, v, target, offset);
      } else {
        throw new IllegalArgumentException("'" + f.name + "' of sample " + sampleIndex + " is a "
            + v.getClass().getName() + "; a column must hold a number, a primitive array or an INDArray");
      }
    }
  }

  private void copyArray(String name, long sampleIndex, int i, Object v, CollateTarget target, int offset) {
    Shape shape = shapes[i];
    int rank = shape.rank();
    Class<?> c = v.getClass().getComponentType();
    boolean flat = !c.isArray() && java.lang.reflect.Array.getLength(v) == counts[i];
    if (flat) {
      writeLeaf(target, i, offset, v);
      return;
    }
    if (rank == 0 || !matches(v, shape, 0)) {
      throw Collate.mismatch(name, sampleIndex, shape, v);
    }
    walk(v, 0, target, i, offset);
  }

  /** True if {@code v} has exactly the dims of {@code shape} from {@code axis} on. */
  private static boolean matches(Object v, Shape shape, int axis) {
    if (v == null || !v.getClass().isArray() || java.lang.reflect.Array.getLength(v) != shape.dim(axis)) {
      return false;
    }
    boolean leaf = axis == shape.rank() - 1;
    if (leaf) {
      return !v.getClass().getComponentType().isArray();
    }
    Object[] rows = v instanceof Object[] ? (Object[]) v : null;
    if (rows == null) {
      return false;
    }
    for (Object r : rows) {
      if (!matches(r, shape, axis + 1)) {
        return false;
      }
    }
    return true;
  }

  private int walk(Object v, int axis, CollateTarget target, int i, int offset) {
    if (axis == shapes[i].rank() - 1) {
      writeLeaf(target, i, offset, v);
      return offset + java.lang.reflect.Array.getLength(v);
    }
    for (Object r : (Object[]) v) {
      offset = walk(r, axis + 1, target, i, offset);
    }
    return offset;
  }

  /** Writes a primitive array at {@code offset}: bulk when the types match, else converting. */
  private void writeLeaf(CollateTarget target, int i, int offset, Object leaf) {
    DType d = dtypes[i];
    if (d == DType.FLOAT32 && leaf instanceof float[]) {
      target.floats(i).put(offset, (float[]) leaf);
    } else if (d == DType.FLOAT64 && leaf instanceof double[]) {
      target.doubles(i).put(offset, (double[]) leaf);
    } else if (d == DType.INT32 && leaf instanceof int[]) {
      target.ints(i).put(offset, (int[]) leaf);
    } else if (d == DType.INT64 && leaf instanceof long[]) {
      target.longs(i).put(offset, (long[]) leaf);
    } else if (d == DType.INT16 && leaf instanceof short[]) {
      target.shorts(i).put(offset, (short[]) leaf);
    } else if ((d == DType.INT8 || d == DType.UINT8) && leaf instanceof byte[]) {
      target.bytes(i).put(offset, (byte[]) leaf);
    } else {
      int n = java.lang.reflect.Array.getLength(leaf);
      for (int k = 0; k < n; k++) {
        write(target, i, offset + k, leaf, k);
      }
    }
  }

  /** Writes element {@code k} of {@code source} (a primitive array, or a boxed scalar when k == 0). */
  private void write(CollateTarget target, int i, int at, Object source, int k) {
    Object e = source.getClass().isArray() ? java.lang.reflect.Array.get(source, k) : source;
    double dv;
    long lv;
    if (e instanceof Boolean) {
      lv = ((Boolean) e) ? 1 : 0;
      dv = lv;
    } else {
      Number n = (Number) e;
      dv = n.doubleValue();
      lv = n.longValue();
    }
    switch (dtypes[i]) {
      case FLOAT32:
        target.floats(i).put(at, (float) dv);
        break;
      case FLOAT64:
        target.doubles(i).put(at, dv);
        break;
      case INT32:
        target.ints(i).put(at, (int) lv);
        break;
      case INT64:
        target.longs(i).put(at, lv);
        break;
      case INT16:
        target.shorts(i).put(at, (short) lv);
        break;
      case UINT16:
        target.chars(i).put(at, (char) lv);
        break;
      case INT8:
      case UINT8:
      case BOOL:
        target.bytes(i).put(at, (byte) lv);
        break;
      default:
        target.array(i).reshape(-1).putScalar(at, dv);
    }
  }
}
