package dev.minibatch.runtime.io.csv;

import dev.minibatch.DType;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The numbers of a parsed CSV file: {@link #rows()} rows of {@link #columns()} data values,
 * row-major, and, when the format has a label column, one label per row.
 *
 * @param rows the number of data rows (header and blank lines excluded)
 * @param columns data values per row (the label column excluded)
 * @param data {@code rows * columns} values, row-major
 * @param labels one label per row, or null without a label column; int32 class indices when the
 *     format maps class names
 * @param classNames the class names by index when the format maps class names, else empty
 */
public record CsvTable(int rows, int columns, NumericArray data, @Nullable NumericArray labels, List<String> classNames) {
  /** Checks the sizes. */
  public CsvTable {
    if ((long) rows * columns != data.length()) {
      throw new IllegalArgumentException(rows + " rows x " + columns + " columns != " + data.length() + " values");
    }
    if (labels != null && labels.length() != rows) {
      throw new IllegalArgumentException(rows + " rows but " + labels.length() + " labels");
    }
    classNames = List.copyOf(classNames);
  }

  /**
   * Parses {@code file}; the first data row sets the number of fields. Files larger than {@link
   * CsvFormat#minBlockBytes()} per thread are parsed in blocks on {@link CsvFormat#threads()}
   * threads, into the same table as a sequential parse.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException for a row of the wrong length (naming file,
   *     line and both counts), an unparsable field (naming file, line and column), an open quote at
   *     the end of the file
   * @throws java.io.UncheckedIOException naming the file if it cannot be read
   */
  public static CsvTable parse(Path file, CsvFormat format) {
    return CsvParser.parse(file, format, -1);
  }

  /**
   * Parses {@code file}, whose rows must have {@code expectedFields} fields (the label column
   * included); -1 takes the count from the first data row.
   */
  public static CsvTable parse(Path file, CsvFormat format, int expectedFields) {
    return CsvParser.parse(file, format, expectedFields);
  }

  /**
   * Parses the bytes of a file (gzip already inflated).
   *
   * @param file the name used in error messages
   * @param expectedFields fields per row, label included, or -1 for the first row's count
   */
  public static CsvTable parse(String file, byte[] bytes, CsvFormat format, int expectedFields) {
    return CsvParser.parse(file, bytes, format, expectedFields);
  }

  /**
   * A flat run of numbers of one element type — float32, float64, int32 or int64 — held in a Java
   * primitive array, as the parsers produce them. Only the first {@link #length()} elements count.
   * Immutable by convention: the parsers hand it over and never touch it again.
   */
  public static final class NumericArray {
    private final DType dtype;
    private final Object array;
    private final int length;

    private NumericArray(DType dtype, Object array, int length) {
      this.dtype = dtype;
      this.array = array;
      this.length = length;
    }

    /** The Java array holding the elements (at least {@link #length()} of them). */
    Object array() {
      return array;
    }

    /** The first {@code length} elements of {@code a}, float32. */
    public static NumericArray of(float[] a, int length) {
      return new NumericArray(DType.FLOAT32, a, checkLength(a.length, length));
    }

    /** The first {@code length} elements of {@code a}, float64. */
    public static NumericArray of(double[] a, int length) {
      return new NumericArray(DType.FLOAT64, a, checkLength(a.length, length));
    }

    /** The first {@code length} elements of {@code a}, int32. */
    public static NumericArray of(int[] a, int length) {
      return new NumericArray(DType.INT32, a, checkLength(a.length, length));
    }

    /** The first {@code length} elements of {@code a}, int64. */
    public static NumericArray of(long[] a, int length) {
      return new NumericArray(DType.INT64, a, checkLength(a.length, length));
    }

    /**
     * A zero-filled array of {@code length} elements of {@code dtype}.
     *
     * @throws IllegalArgumentException for a dtype other than float32, float64, int32, int64
     */
    public static NumericArray zeros(DType dtype, int length) {
      switch (dtype) {
        case FLOAT32:
          return of(new float[length], length);
        case FLOAT64:
          return of(new double[length], length);
        case INT32:
          return of(new int[length], length);
        case INT64:
          return of(new long[length], length);
        default:
          throw new IllegalArgumentException(unsupported(dtype));
      }
    }

    /** The message for a dtype the parsers do not produce. */
    public static String unsupported(DType dtype) {
      return "dtype " + dtype + " is not supported here; use FLOAT32, FLOAT64, INT32 or INT64";
    }

    /** The element type. */
    public DType dtype() {
      return dtype;
    }

    /** The number of elements. */
    public int length() {
      return length;
    }

    /** Element {@code i} as a double (int64 values beyond 2^53 lose precision; use {@link #getLong}). */
    public double getDouble(int i) {
      checkIndex(i);
      switch (dtype) {
        case FLOAT32:
          return ((float[]) array)[i];
        case FLOAT64:
          return ((double[]) array)[i];
        case INT32:
          return ((int[]) array)[i];
        default:
          return ((long[]) array)[i];
      }
    }

    /** Element {@code i} as a long (floats are truncated toward zero). */
    public long getLong(int i) {
      checkIndex(i);
      switch (dtype) {
        case INT32:
          return ((int[]) array)[i];
        case INT64:
          return ((long[]) array)[i];
        default:
          return (long) getDouble(i);
      }
    }

    /** The elements as a new float array. */
    public float[] toFloatArray() {
      float[] out = new float[length];
      for (int i = 0; i < length; i++) {
        out[i] = dtype == DType.FLOAT32 ? ((float[]) array)[i] : (float) getDouble(i);
      }
      return out;
    }

    /** The elements as a new int array (floats truncated, int64 narrowed). */
    public int[] toIntArray() {
      int[] out = new int[length];
      for (int i = 0; i < length; i++) {
        out[i] = (int) getLong(i);
      }
      return out;
    }

    /** The elements as a new long array. */
    public long[] toLongArray() {
      long[] out = new long[length];
      for (int i = 0; i < length; i++) {
        out[i] = getLong(i);
      }
      return out;
    }

    /**
     * The elements as an INDArray of this dtype with {@code shape} (whose element count must be
     * {@link #length()}); the data is copied once into ND4J's memory.
     */
    public INDArray toINDArray(long... shape) {
      return toINDArray(dtype, List.of(this), shape);
    }

    /**
     * The elements of {@code parts}, in order, as one INDArray of {@code dtype} and {@code shape}:
     * each part is copied once, in bulk, straight into the new array's memory (no joined Java array
     * in between).
     *
     * @throws IllegalArgumentException if a part has another dtype or {@code shape} does not hold
     *     the parts' total length
     */
    public static INDArray toINDArray(DType dtype, List<NumericArray> parts, long... shape) {
      long n = 1;
      for (long d : shape) {
        n *= d;
      }
      long total = 0;
      for (NumericArray p : parts) {
        if (p.dtype != dtype) {
          throw new IllegalArgumentException("cannot copy " + p.dtype + " into " + dtype);
        }
        total += p.length;
      }
      if (n != total) {
        throw new IllegalArgumentException("shape " + java.util.Arrays.toString(shape) + " holds " + n
            + " elements, the arrays have " + total);
      }
      INDArray out = HostArrays.allocate(dtype, shape);
      int step = HostArrays.maxWindowElements(out);
      long at = 0;
      for (NumericArray p : parts) {
        for (int from = 0; from < p.length; from += step) {
          int count = Math.min(step, p.length - from);
          p.copyTo(from, count, HostArrays.window(out, at, count));
          at += count;
        }
      }
      HostArrays.hostWritten(out);
      return out;
    }

    private void copyTo(int from, int count, ByteBuffer dst) {
      switch (dtype) {
        case FLOAT32:
          dst.asFloatBuffer().put((float[]) array, from, count);
          break;
        case FLOAT64:
          dst.asDoubleBuffer().put((double[]) array, from, count);
          break;
        case INT32:
          dst.asIntBuffer().put((int[]) array, from, count);
          break;
        default:
          dst.asLongBuffer().put((long[]) array, from, count);
      }
    }

    /** The elements of {@code parts}, in order, in one array. All parts must have one dtype. */
    public static NumericArray concat(DType dtype, List<NumericArray> parts) {
      long total = 0;
      for (NumericArray p : parts) {
        if (p.dtype != dtype) {
          throw new IllegalArgumentException("cannot concatenate " + p.dtype + " into " + dtype);
        }
        total += p.length;
      }
      if (total > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(total + " elements do not fit in one Java array");
      }
      if (parts.size() == 1) {
        return parts.get(0);
      }
      NumericArray out = zeros(dtype, (int) total);
      int at = 0;
      for (NumericArray p : parts) {
        System.arraycopy(p.array, 0, out.array, at, p.length);
        at += p.length;
      }
      return out;
    }

    private void checkIndex(int i) {
      if (i < 0 || i >= length) {
        throw new IndexOutOfBoundsException("element " + i + " of " + length);
      }
    }

    private static int checkLength(int capacity, int length) {
      if (length < 0 || length > capacity) {
        throw new IllegalArgumentException("length " + length + " outside [0, " + capacity + "]");
      }
      return length;
    }

    @Override
    public String toString() {
      return "NumericArray[" + dtype + ", " + length + "]";
    }
  }
}
