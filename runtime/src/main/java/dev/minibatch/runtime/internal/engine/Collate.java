package dev.minibatch.runtime.internal.engine;

import dev.minibatch.DType;
import dev.minibatch.shape.Shape;
import dev.minibatch.shape.ShapeCheck;
import java.lang.reflect.Array;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.bytedeco.javacpp.indexer.HalfIndexer;

/**
 * The cold paths of collate code (generated, or the feeding provider's), kept out of it so the
 * collate methods stay small enough to inline: shape-mismatch errors and INDArray members. Called
 * by generated code: its shape may change in any release.
 */
public final class Collate {
  private Collate() {}

  /**
   * The error for a sample whose member does not match its shape. {@code actual} is the member's
   * value (a primitive array of any rank, possibly ragged, or an INDArray); its dims are measured
   * here, on the error path only.
   */
  public static IllegalArgumentException mismatch(String name, long sampleIndex, Shape expected, Object actual) {
    return new IllegalArgumentException(ShapeCheck.sampleMismatch(name, sampleIndex, expected, dimsOf(actual, expected)));
  }

  /** The error for a null member. */
  public static NullPointerException nullMember(String name, long sampleIndex) {
    return new NullPointerException("field '" + name + "' of sample " + sampleIndex + " is null");
  }

  /** The error for a sample longer than its member's {@code maxLength} under {@code TooLong.ERROR}. */
  public static IllegalArgumentException tooLong(String name, long sampleIndex, long length, long maxLength) {
    return new IllegalArgumentException("field '" + name + "' of sample " + sampleIndex + ": length " + length
        + " exceeds maxLength " + maxLength + " (tooLong = ERROR); raise maxLength, or truncate with tooLong = "
        + "TRUNCATE_START or TRUNCATE_END");
  }

  /** The error for a member whose variable axis differs from the member it is {@code sameLengthAs}. */
  public static IllegalArgumentException lengthMismatch(String name, long sampleIndex, long length, String root,
      long rootLength) {
    return new IllegalArgumentException("field '" + name + "' of sample " + sampleIndex + " has length " + length
        + " but is sameLengthAs '" + root + "', which has length " + rootLength);
  }

  /** The sample index {@code index} as an image decoder's {@code int} (checked: a source of 2^31 samples or more is refused). */
  public static int sampleIndex(long index) {
    return Math.toIntExact(index);
  }

  /** The error for an encoded image that does not decode, naming the member and the sample. */
  public static IllegalArgumentException badImage(String name, long sampleIndex, RuntimeException e) {
    return new IllegalArgumentException("field '" + name + "' of sample " + sampleIndex + ": " + e.getMessage(), e);
  }

  /** The error for a null sample. */
  public static NullPointerException nullSample(long sampleIndex) {
    return new NullPointerException("sample " + sampleIndex + " is null");
  }

  /**
   * The dims of {@code value}: an INDArray's shape, or a primitive array's lengths along the path
   * that first disagrees with {@code expected} (so a ragged array shows its bad row).
   */
  static long[] dimsOf(Object value, Shape expected) {
    if (value instanceof INDArray a) {
      return a.shape();
    }
    List<Long> dims = new ArrayList<>();
    Object cur = value;
    int axis = 0;
    while (cur != null && cur.getClass().isArray()) {
      int len = Array.getLength(cur);
      dims.add((long) len);
      if (!cur.getClass().getComponentType().isArray() || len == 0) {
        break;
      }
      Object next = Array.get(cur, 0);
      long want = axis + 1 < expected.rank() ? expected.dim(axis + 1) : -1;
      for (int i = 0; i < len; i++) {
        Object c = Array.get(cur, i);
        if (c == null || Array.getLength(c) != want) {
          next = c;
          break;
        }
      }
      cur = next;
      axis++;
    }
    return dims.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * Copies an INDArray member into row {@code row} of {@code batch}: its shape must equal {@code
   * expected}, or it must be rank 1 (or a scalar) with the same number of elements. Converts the
   * element type if needed.
   */
  public static void indarray(String name, long sampleIndex, Shape expected, INDArray value, INDArray batch, int row) {
    long[] s = value.shape();
    boolean same = expected.matches(s);
    boolean flat = (s.length <= 1) && value.length() == expected.elementCount();
    if (!same && !flat) {
      throw mismatch(name, sampleIndex, expected, value);
    }
    INDArray dst = batch.get(NDArrayIndex.point(row));
    if (expected.rank() == 0) {
      dst.assign(value.getDouble(0));
    } else {
      dst.assign(same ? value : value.reshape('c', expected.toLongArray()));
    }
  }

  /**
   * The length of an INDArray member's variable axis, after checking its rank and fixed dims
   * against {@code expected} (which holds {@link Shape#VARIABLE} there).
   */
  public static int lengthOf(String name, long sampleIndex, Shape expected, INDArray value) {
    if (!expected.matches(value.shape())) {
      throw mismatch(name, sampleIndex, expected, value);
    }
    return Math.toIntExact(value.size(expected.variableAxis()));
  }

  /**
   * Copies steps {@code [skip, skip + len)} of an INDArray member along {@code axis} into the first
   * {@code len} steps of {@code row} (the member's row at the batch's steps), and {@code pad} into
   * the rest. Converts the element type if needed.
   */
  public static void sequence(INDArray value, INDArray row, int axis, int len, int skip, double pad) {
    long steps = row.size(axis);
    INDArrayIndex[] kept = all(row.rank());
    kept[axis] = NDArrayIndex.interval(0, len);
    INDArrayIndex[] from = all(row.rank());
    from[axis] = NDArrayIndex.interval(skip, skip + len);
    if (len > 0) {
      row.get(kept).assign(value.get(from));
    }
    if (len < steps) {
      INDArrayIndex[] rest = all(row.rank());
      rest[axis] = NDArrayIndex.interval(len, steps);
      row.get(rest).assign(pad);
    }
  }

  private static INDArrayIndex[] all(int rank) {
    INDArrayIndex[] out = new INDArrayIndex[rank];
    for (int i = 0; i < rank; i++) {
      out[i] = NDArrayIndex.all();
    }
    return out;
  }

  /** The length of the padding rows generated code fills padded steps from, in bulk copies. */
  public static final int PAD_CHUNK = 1024;

  /** Mask values of real steps, for bulk copies into a mask row. */
  private static final float[] REAL_STEPS = padRow(1f);
  /** Mask values of padded steps. */
  private static final float[] PADDED_STEPS = padRow(0f);

  /**
   * The one step-padding rule, for generated collate code and shard sets alike: {@link #PAD_CHUNK}
   * copies of {@code stepPadding} as an element of {@code dtype}'s batch buffer, a {@code byte[]}
   * (BOOL, INT8, UINT8), {@code short[]} (INT16; FLOAT16 as its half-float bits), {@code char[]}
   * (UINT16), {@code int[]}, {@code long[]}, {@code float[]} or {@code double[]}. An integer type
   * takes the value's integer part in its own width, as Java's casts do ({@code 255} is UINT8's
   * 255 and INT8's -1); a float type the nearest value. Fill from it with {@link #fill(CollateTarget,
   * int, DType, int, int, Object)} or the {@code fill} of its buffer type.
   *
   * @throws IllegalArgumentException for {@link DType#INFER}
   */
  public static Object padRow(DType dtype, double stepPadding) {
    return switch (dtype) {
      case BOOL, INT8, UINT8 -> padRow((byte) (long) stepPadding);
      case INT16 -> padRow((short) (long) stepPadding);
      case FLOAT16 -> padRow((short) HalfIndexer.fromFloat((float) stepPadding));
      case UINT16 -> padRow((char) (long) stepPadding);
      case INT32 -> padRow((int) stepPadding);
      case INT64 -> padRow((long) stepPadding);
      case FLOAT32 -> padRow((float) stepPadding);
      case FLOAT64 -> padRow(stepPadding);
      case INFER -> throw new IllegalArgumentException("no step padding for " + dtype + ", which is not a concrete type");
    };
  }

  /**
   * Writes {@code count} values of {@code padRow} ({@link #padRow(DType, double)} of {@code dtype})
   * to array {@code array} of {@code out} from element {@code at}, in bulk copies.
   */
  public static void fill(CollateTarget out, int array, DType dtype, int at, int count, Object padRow) {
    if (count == 0) {
      return;
    }
    switch (dtype) {
      case BOOL, INT8, UINT8 -> fill(out.bytes(array), at, count, (byte[]) padRow);
      case INT16, FLOAT16 -> fill(out.shorts(array), at, count, (short[]) padRow);
      case UINT16 -> fill(out.chars(array), at, count, (char[]) padRow);
      case INT32 -> fill(out.ints(array), at, count, (int[]) padRow);
      case INT64 -> fill(out.longs(array), at, count, (long[]) padRow);
      case FLOAT32 -> fill(out.floats(array), at, count, (float[]) padRow);
      case FLOAT64 -> fill(out.doubles(array), at, count, (double[]) padRow);
      case INFER -> throw new IllegalArgumentException("no step padding for " + dtype + ", which is not a concrete type");
    }
  }

  /** Writes one mask row of {@code steps} values from {@code at}: {@code length} ones, then zeros. */
  public static void maskRow(FloatBuffer mask, int at, int length, int steps) {
    fill(mask, at, length, REAL_STEPS);
    fill(mask, at + length, steps - length, PADDED_STEPS);
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.ByteBuffer, int, int, byte[])}. */
  public static byte[] padRow(byte value) {
    byte[] row = new byte[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.ByteBuffer out, int at, int count, byte[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.ShortBuffer, int, int, short[])}. */
  public static short[] padRow(short value) {
    short[] row = new short[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.ShortBuffer out, int at, int count, short[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.CharBuffer, int, int, char[])}. */
  public static char[] padRow(char value) {
    char[] row = new char[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.CharBuffer out, int at, int count, char[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.IntBuffer, int, int, int[])}. */
  public static int[] padRow(int value) {
    int[] row = new int[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.IntBuffer out, int at, int count, int[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.LongBuffer, int, int, long[])}. */
  public static long[] padRow(long value) {
    long[] row = new long[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.LongBuffer out, int at, int count, long[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.FloatBuffer, int, int, float[])}. */
  public static float[] padRow(float value) {
    float[] row = new float[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.FloatBuffer out, int at, int count, float[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }

  /** {@link #PAD_CHUNK} copies of {@code value}: a padding row for {@link #fill(java.nio.DoubleBuffer, int, int, double[])}. */
  public static double[] padRow(double value) {
    double[] row = new double[PAD_CHUNK];
    java.util.Arrays.fill(row, value);
    return row;
  }

  /** Writes {@code count} values of {@code padRow} to {@code out} from {@code at}, in bulk copies. */
  public static void fill(java.nio.DoubleBuffer out, int at, int count, double[] padRow) {
    while (count > 0) {
      int n = Math.min(count, padRow.length);
      out.put(at, padRow, 0, n);
      at += n;
      count -= n;
    }
  }
}
