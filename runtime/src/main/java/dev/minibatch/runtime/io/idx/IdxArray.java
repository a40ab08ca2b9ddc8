package dev.minibatch.runtime.io.idx;

import dev.minibatch.DType;
import dev.minibatch.runtime.engine.RowSource;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.nd4j.HostArrays;
import dev.minibatch.shape.Shape;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The content of one idx file: its element type, its extents (axis 0 is the sample axis), and its
 * elements, kept as the file's big-endian bytes and converted on request. Immutable.
 *
 * <p>{@link #toFloatINDArray} and {@link #toIntINDArray} decode the bytes straight into a new
 * INDArray's memory: the file's bytes are read once and each element is written once.
 */
public final class IdxArray {
  private final String file;
  private final IdxType type;
  private final int[] dims;
  private final ByteBuffer data;
  private final byte[] bytes;
  private final int offset;
  private final long size;

  IdxArray(String file, IdxType type, int[] dims, byte[] bytes, int dataOffset) {
    this.file = file;
    this.type = type;
    this.dims = dims.clone();
    long n = 1;
    for (int d : dims) {
      n *= d;
    }
    this.size = n;
    this.bytes = bytes;
    this.offset = dataOffset;
    this.data = ByteBuffer.wrap(bytes, dataOffset, (int) (n * type.byteSize())).slice().order(ByteOrder.BIG_ENDIAN);
  }

  /** The file this was read from. */
  public String file() {
    return file;
  }

  /** The element type. */
  public IdxType type() {
    return type;
  }

  /** The extents of every axis (a copy). */
  public int[] dims() {
    return dims.clone();
  }

  /** The number of axes. */
  public int rank() {
    return dims.length;
  }

  /** The number of samples: the extent of axis 0. */
  public int count() {
    return dims[0];
  }

  /** The number of elements in one sample: the product of the extents after axis 0. */
  public int sampleSize() {
    int n = 1;
    for (int i = 1; i < dims.length; i++) {
      n *= dims[i];
    }
    return n;
  }

  /** The number of elements. */
  public long size() {
    return size;
  }

  /** Element {@code i} (row-major) as a double; uint8 elements are 0..255. */
  public double getDouble(long i) {
    int at = checkIndex(i) * type.byteSize();
    switch (type) {
      case UINT8:
        return data.get(at) & 0xff;
      case INT8:
        return data.get(at);
      case INT16:
        return data.getShort(at);
      case INT32:
        return data.getInt(at);
      case FLOAT32:
        return data.getFloat(at);
      case FLOAT64:
        return data.getDouble(at);
      default:
        throw new AssertionError(type);
    }
  }

  /**
   * Copies {@code n} elements from element {@code from} into {@code dst[dstOff ..]} as floats
   * multiplied by {@code scale} (uint8 as 0..255 before scaling).
   */
  public void copyTo(long from, int n, float[] dst, int dstOff, float scale) {
    checkIndex(from);
    if (n > 0) {
      checkIndex(from + n - 1);
    }
    int at = (int) from;
    switch (type) {
      case UINT8:
        for (int k = 0; k < n; k++) {
          dst[dstOff + k] = (data.get(at + k) & 0xff) * scale;
        }
        break;
      case INT8:
        for (int k = 0; k < n; k++) {
          dst[dstOff + k] = data.get(at + k) * scale;
        }
        break;
      default:
        for (int k = 0; k < n; k++) {
          dst[dstOff + k] = (float) (getDouble(at + k) * scale);
        }
    }
  }

  /**
   * The samples (axis 0) as a {@link RowSource} of {@code sampleShape} (whose element count must be
   * {@link #sampleSize()}) delivering {@code dtype}, FLOAT32 (times {@code scale}) or INT32. 8-bit
   * files stay bytes, decoded into each batch buffer as it is filled; wider types are decoded once
   * into an INDArray ({@link #toFloatINDArray}, {@link #toIntINDArray}).
   *
   * @throws IllegalArgumentException for another dtype or a sample shape of another size
   * @throws IllegalStateException for INT32 from a float32 or float64 file
   * @throws FileFormatException if the file holds no samples or its samples hold no elements
   */
  public RowSource rows(Shape sampleShape, DType dtype, float scale) {
    if (dtype != DType.FLOAT32 && dtype != DType.INT32) {
      throw new IllegalArgumentException(file + ": samples decode to FLOAT32 or INT32, not " + dtype);
    }
    checkNotEmpty();
    if (sampleShape.elementCount() != sampleSize()) {
      throw new IllegalArgumentException(file + ": sample shape " + sampleShape + " holds " + sampleShape.elementCount()
          + " elements, a sample of the file holds " + sampleSize());
    }
    if (type == IdxType.UINT8 || type == IdxType.INT8) {
      return RowSource.bytes(bytes, offset, count(), sampleShape, type == IdxType.UINT8, dtype, scale);
    }
    long[] shape = sampleShape.withBatch(count()).toLongArray();
    return RowSource.of(dtype == DType.FLOAT32 ? toFloatINDArray(scale, shape) : toIntINDArray(shape));
  }

  /**
   * All elements multiplied by {@code scale} in a new dense float32 array of {@code shape} (whose
   * element count must be {@link #size()}), decoded straight into its memory without an
   * intermediate Java array. uint8 and int8 elements go through a 256-entry table, so each value is
   * exactly {@code (float) element * scale}.
   *
   * @throws IllegalArgumentException if {@code shape} does not hold {@link #size()} elements
   */
  public INDArray toFloatINDArray(float scale, long... shape) {
    INDArray out = HostArrays.allocate(DType.FLOAT32, checkShape(shape));
    int step = Math.min(HostArrays.maxWindowElements(out), 1 << 26);
    for (long from = 0; from < size; from += step) {
      int n = (int) Math.min(step, size - from);
      decodeFloats((int) from, n, HostArrays.window(out, from, n).asFloatBuffer(), scale);
    }
    HostArrays.hostWritten(out);
    return out;
  }

  /**
   * All elements in a new dense int32 array of {@code shape}, decoded straight into its memory.
   *
   * @throws IllegalStateException for float32 and float64 files
   * @throws IllegalArgumentException if {@code shape} does not hold {@link #size()} elements
   */
  public INDArray toIntINDArray(long... shape) {
    if (type == IdxType.FLOAT32 || type == IdxType.FLOAT64) {
      throw new IllegalStateException(file + ": holds " + type + " elements, not integers");
    }
    INDArray out = HostArrays.allocate(DType.INT32, checkShape(shape));
    int step = Math.min(HostArrays.maxWindowElements(out), 1 << 26);
    for (long from = 0; from < size; from += step) {
      int n = (int) Math.min(step, size - from);
      IntBuffer dst = HostArrays.window(out, from, n).asIntBuffer();
      int at = (int) from;
      for (int k = 0; k < n; k++) {
        dst.put(k, intAt(at + k));
      }
    }
    HostArrays.hostWritten(out);
    return out;
  }

  /**
   * Checks that the file holds at least one sample and that every axis has a positive extent: a
   * provider cannot batch samples that are not there or hold nothing.
   *
   * @throws FileFormatException naming the file and the axis with extent 0
   */
  public void checkNotEmpty() {
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] == 0) {
        throw new FileFormatException(file, i == 0 ? "holds no samples: the header declares extent 0 for axis 0 (header offset 4)"
            : "axis " + i + " has extent 0 (header offset " + (4 + 4 * i) + "): a sample holds no elements");
      }
    }
  }

  /** Writes elements {@code [from, from + n)} times {@code scale} to {@code dst[0, n)}. */
  private void decodeFloats(int from, int n, FloatBuffer dst, float scale) {
    if (type == IdxType.UINT8 || type == IdxType.INT8) {
      float[] table = new float[256];
      for (int v = 0; v < 256; v++) {
        table[v] = (type == IdxType.UINT8 ? v : (byte) v) * scale;
      }
      byte[] b = bytes;
      int at = offset + from;
      for (int k = 0; k < n; k++) {
        dst.put(k, table[b[at + k] & 0xff]);
      }
      return;
    }
    for (int k = 0; k < n; k++) {
      dst.put(k, (float) (getDouble(from + k) * scale));
    }
  }

  private int intAt(int i) {
    int at = i * type.byteSize();
    switch (type) {
      case UINT8:
        return data.get(at) & 0xff;
      case INT8:
        return data.get(at);
      case INT16:
        return data.getShort(at);
      default:
        return data.getInt(at);
    }
  }

  private long[] checkShape(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    if (n != size || shape.length == 0) {
      throw new IllegalArgumentException(file + ": shape " + java.util.Arrays.toString(shape) + " holds " + n
          + " elements, the file holds " + size);
    }
    return shape;
  }

  /** All elements as floats multiplied by {@code scale}. */
  public float[] toFloatArray(float scale) {
    float[] out = new float[Math.toIntExact(size)];
    copyTo(0, out.length, out, 0, scale);
    return out;
  }

  /**
   * All elements as ints.
   *
   * @throws IllegalStateException for float32 and float64 files
   */
  public int[] toIntArray() {
    if (type == IdxType.FLOAT32 || type == IdxType.FLOAT64) {
      throw new IllegalStateException(file + ": holds " + type + " elements, not integers");
    }
    int[] out = new int[Math.toIntExact(size)];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) getDouble(i);
    }
    return out;
  }

  /** All elements as doubles. */
  public double[] toDoubleArray() {
    double[] out = new double[Math.toIntExact(size)];
    for (int i = 0; i < out.length; i++) {
      out[i] = getDouble(i);
    }
    return out;
  }

  private int checkIndex(long i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("element " + i + " of " + size + " in " + file);
    }
    return (int) i;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("IdxArray[").append(file).append(", ").append(type).append(", ");
    for (int i = 0; i < dims.length; i++) {
      sb.append(i == 0 ? "" : " x ").append(dims[i]);
    }
    return sb.append(']').toString();
  }
}
