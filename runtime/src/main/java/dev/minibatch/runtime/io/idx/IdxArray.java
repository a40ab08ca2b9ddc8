package dev.minibatch.runtime.io.idx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The content of one idx file: its element type, its extents (axis 0 is the sample axis), and its
 * elements, kept as the file's big-endian bytes and converted on request. Immutable.
 */
public final class IdxArray {
  private final String file;
  private final IdxType type;
  private final int[] dims;
  private final ByteBuffer data;
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
