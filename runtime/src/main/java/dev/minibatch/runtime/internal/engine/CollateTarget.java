package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.Slot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Typed NIO views of the host memory of one {@link BatchSlot}'s arrays (one per provided name, in
 * layout order), made once per slot ({@link #of(BatchSlot)}), so collate code — generated, or the
 * feeding provider's — writes with absolute bulk {@code put}s: no allocation, no JNI call, no
 * boxing per sample. Views use the platform's byte order, like ND4J's buffers. Called by generated
 * code: its shape may change in any release.
 */
public final class CollateTarget {
  private final INDArray[] arrays;
  private final ByteBuffer[] bytes;
  private final Object[] typed;
  private final FloatBuffer[] masks;
  private final IntBuffer[] lengths;
  private final BatchSlot<?> slot;

  /** The views of {@code slot}'s arrays, made on first use and kept with the slot. */
  public static CollateTarget of(Slot slot) {
    return BatchSlot.of(slot).views();
  }

  CollateTarget(INDArray[] arrays, INDArray[] masks, INDArray[] lengths, BatchSlot<?> slot) {
    this.slot = slot;
    this.masks = new FloatBuffer[masks.length];
    this.lengths = new IntBuffer[lengths.length];
    for (int g = 0; g < masks.length; g++) {
      this.masks[g] = hostBytes(masks[g]).asFloatBuffer();
      this.lengths[g] = hostBytes(lengths[g]).asIntBuffer();
    }
    this.arrays = arrays.clone();
    this.bytes = new ByteBuffer[arrays.length];
    this.typed = new Object[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      INDArray a = arrays[i];
      long n = a.length() * a.data().getElementSize();
      if (n > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a batch array of " + n + " bytes exceeds 2 GiB; use a smaller batch");
      }
      bytes[i] = hostBytes(a);
      // The view of the array's own element type, made now: writers on several threads then only read it.
      typed[i] = typedView(bytes[i], a.dataType());
    }
  }

  /** A native-order byte view of {@code a}'s host memory. */
  private static ByteBuffer hostBytes(INDArray a) {
    long n = a.length() * a.data().getElementSize();
    Nd4j.getAffinityManager().ensureLocation(a, AffinityManager.Location.HOST);
    BytePointer p = new BytePointer(a.data().addressPointer());
    return p.limit(n).asByteBuffer().order(ByteOrder.nativeOrder());
  }

  /** The seed of the epoch whose batch is being written ({@link Slot#seed()}): per-sample draws derive from it. */
  public long seed() {
    return slot.seed();
  }

  /** The epoch whose batch is being written ({@link Slot#epoch()}). */
  public int epoch() {
    return slot.epoch();
  }

  /**
   * The padded length of length group {@code g} in the batch being written: a variable member's row
   * holds this many steps, its sample's own and then padding.
   */
  public int steps(int g) {
    return slot.steps(g);
  }

  /** The mask of length group {@code g}: row {@code r} at {@code r * steps(g)}, 1 for a real step, 0 for padding. */
  public FloatBuffer mask(int g) {
    return masks[g];
  }

  /** The lengths of length group {@code g}, one per row. */
  public IntBuffer lengths(int g) {
    return lengths[g];
  }

  IntBuffer[] lengthViews() {
    return lengths;
  }

  /**
   * Row {@code row} of the array at layout position {@code i} at this batch's steps (for INDArray
   * members).
   */
  public INDArray row(int i, int row) {
    return slot.rowView(i, row);
  }

  private static Object typedView(ByteBuffer b, org.nd4j.linalg.api.buffer.DataType type) {
    switch (type) {
      case FLOAT:
        return b.asFloatBuffer();
      case DOUBLE:
        return b.asDoubleBuffer();
      case INT:
        return b.asIntBuffer();
      case LONG:
        return b.asLongBuffer();
      case SHORT:
        return b.asShortBuffer();
      case UINT16:
        return b.asCharBuffer();
      default:
        return b;
    }
  }

  /** The batch array at layout position {@code i} (for INDArray members). */
  public INDArray array(int i) {
    return arrays[i];
  }

  /** A byte view of array {@code i} (BOOL, INT8, UINT8). */
  public ByteBuffer bytes(int i) {
    return bytes[i];
  }

  /** A short view of array {@code i} (INT16). */
  public ShortBuffer shorts(int i) {
    Object t = typed[i];
    if (!(t instanceof ShortBuffer)) {
      t = typed[i] = bytes[i].asShortBuffer();
    }
    return (ShortBuffer) t;
  }

  /** A char view of array {@code i} (UINT16). */
  public CharBuffer chars(int i) {
    Object t = typed[i];
    if (!(t instanceof CharBuffer)) {
      t = typed[i] = bytes[i].asCharBuffer();
    }
    return (CharBuffer) t;
  }

  /** An int view of array {@code i} (INT32). */
  public IntBuffer ints(int i) {
    Object t = typed[i];
    if (!(t instanceof IntBuffer)) {
      t = typed[i] = bytes[i].asIntBuffer();
    }
    return (IntBuffer) t;
  }

  /** A long view of array {@code i} (INT64). */
  public LongBuffer longs(int i) {
    Object t = typed[i];
    if (!(t instanceof LongBuffer)) {
      t = typed[i] = bytes[i].asLongBuffer();
    }
    return (LongBuffer) t;
  }

  /** A float view of array {@code i} (FLOAT32). */
  public FloatBuffer floats(int i) {
    Object t = typed[i];
    if (!(t instanceof FloatBuffer)) {
      t = typed[i] = bytes[i].asFloatBuffer();
    }
    return (FloatBuffer) t;
  }

  /** A double view of array {@code i} (FLOAT64). */
  public DoubleBuffer doubles(int i) {
    Object t = typed[i];
    if (!(t instanceof DoubleBuffer)) {
      t = typed[i] = bytes[i].asDoubleBuffer();
    }
    return (DoubleBuffer) t;
  }
}
