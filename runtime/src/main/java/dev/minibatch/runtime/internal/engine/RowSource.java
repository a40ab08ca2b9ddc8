package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.DType;
import dev.minibatch.runtime.spi.DTypes;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import dev.minibatch.runtime.spi.Rows;
import dev.minibatch.shape.Shape;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One named array of samples addressed by index, as the engine's batches read it: the number of
 * samples, the shape and element type of one sample, and how rows reach the batch buffer. {@link
 * #writer(RowSource...)} turns one source per layout name into the engine's {@link RowWriter}. Two
 * kinds:
 *
 * <ul>
 *   <li>{@link #of(INDArray)}: a loaded array; a batch is one bulk copy per run of consecutive
 *       samples.
 *   <li>{@link #bytes}: 8-bit samples kept as the file's bytes on the Java heap and decoded (times
 *       a scale) straight into the batch buffer while it is filled, so no full-size float array is
 *       ever allocated: MNIST's 7.8 MB of pixels stay 7.8 MB instead of becoming 31 MB of floats.
 *   <li>{@link #heap}: samples parsed into Java arrays (a CSV file's blocks), kept where the parser
 *       left them: no copy into native memory, whose first touch (a page fault per 4 KiB) would cost
 *       more than the copy itself each time a file is loaded.
 * </ul>
 */
public abstract class RowSource implements Rows {
  private final int rows;
  private final Shape sampleShape;
  private final DType dtype;

  private RowSource(int rows, Shape sampleShape, DType dtype) {
    this.rows = rows;
    this.sampleShape = sampleShape;
    this.dtype = dtype;
  }

  /**
   * The rows of {@code array}, whose axis 0 is the sample axis.
   *
   * @throws IllegalArgumentException for a scalar or an element type minibatch does not provide
   */
  public static RowSource of(INDArray array) {
    return new ArrayRows(array);
  }

  /**
   * {@code rows} samples of {@code sampleShape} stored as bytes from {@code bytes[offset]} on, row
   * after row, delivered as {@code dtype} (FLOAT32: each byte times {@code scale}; INT32: each
   * byte's integer value, scale ignored). Bytes are read as 0..255 when {@code unsigned}, else as
   * -128..127. The array is not copied: it must not change afterwards.
   *
   * @throws IllegalArgumentException if the bytes are too few or {@code dtype} is neither FLOAT32 nor
   *     INT32
   */
  public static RowSource bytes(byte[] bytes, int offset, int rows, Shape sampleShape, boolean unsigned, DType dtype,
      float scale) {
    return new ByteRows(bytes, offset, rows, sampleShape, unsigned, dtype, scale);
  }

  /**
   * Samples kept in Java arrays, in blocks: block {@code k} ({@code float[]}, {@code double[]},
   * {@code int[]} or {@code long[]} as {@code dtype} says) holds {@code blockRows[k]} samples of
   * {@code sampleShape}, row after row from index 0; the samples are the blocks' rows in order. The
   * arrays are not copied: they must not change afterwards.
   *
   * @throws IllegalArgumentException if a block is not the array type of {@code dtype}, holds fewer
   *     elements than its rows need, or the blocks hold more than {@link Integer#MAX_VALUE} samples
   */
  public static RowSource heap(DType dtype, Shape sampleShape, Object[] blocks, int[] blockRows) {
    return new HeapRows(dtype, sampleShape, blocks.clone(), blockRows.clone());
  }

  /** The number of samples. */
  public final int rows() {
    return rows;
  }

  /** The shape of one sample. */
  public final Shape sampleShape() {
    return sampleShape;
  }

  /** The element type the batches see. */
  public final DType dtype() {
    return dtype;
  }

  /**
   * {@code rows} as the engine's source: the runtime makes every {@link Rows} it hands out as a
   * RowSource, and nothing takes another implementation.
   *
   * @throws IllegalArgumentException for rows the runtime did not make
   */
  public static RowSource of(Rows rows) {
    if (rows instanceof RowSource s) {
      return s;
    }
    throw new IllegalArgumentException("rows of " + rows.getClass().getName() + " are not the runtime's: take them from"
        + " the runtime's readers (e.g. IdxFile.IdxArray.rows)");
  }

  /**
   * The writer of a batch whose array {@code i} comes from {@code sources[i]}.
   *
   * @throws IllegalArgumentException if there are no sources or their sample counts differ
   */
  public static RowWriter writer(RowSource... sources) {
    if (sources.length == 0) {
      throw new IllegalArgumentException("no row sources");
    }
    RowSource[] s = sources.clone();
    for (RowSource r : s) {
      if (r.rows() != s[0].rows()) {
        throw new IllegalArgumentException("row sources differ in sample count: " + s[0].rows() + " and " + r.rows());
      }
    }
    boolean arrays = true;
    for (RowSource r : s) {
      arrays &= r instanceof ArrayRows;
    }
    if (arrays && s.length > 1) {
      // Loaded arrays (features and labels): one pass copies each sample's rows together.
      NativeRows[] src = new NativeRows[s.length];
      for (int i = 0; i < s.length; i++) {
        src[i] = ((ArrayRows) s[i]).nativeRows;
      }
      return (indices, from, to, slot) -> NativeRows.gather(src, indices, from, to, BatchSlot.of(slot).allRows());
    }
    return (indices, from, to, slot) -> {
      BatchSlot<?> b = BatchSlot.of(slot);
      for (int i = 0; i < s.length; i++) {
        s[i].copy(indices, from, to, b, i);
      }
    };
  }

  /**
   * For every row {@code r} in {@code [from, to)}: copies sample {@code indices[r]} to row {@code r}
   * of array {@code i} of {@code slot}. Threads may copy disjoint rows of one slot at the same time.
   */
  abstract void copy(int[] indices, int from, int to, BatchSlot<?> slot, int i);

  /** Sample {@code i} without the batch axis: a view where the rows are an array, else a new array. */
  public abstract INDArray row(int i);


  /** A loaded dense array. */
  private static final class ArrayRows extends RowSource {
    private final INDArray array;
    private final NativeRows nativeRows;

    ArrayRows(INDArray array) {
      super(samples(array), Shape.of(array.shape()).dropFirst(), DTypes.fromNd4j(array.dataType()));
      this.array = NativeRows.dense(array);
      this.nativeRows = NativeRows.of(this.array);
    }

    private static int samples(INDArray array) {
      if (array.rank() == 0) {
        throw new IllegalArgumentException("a scalar array has no sample axis");
      }
      if (array.size(0) > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(array.size(0) + " samples; at most " + Integer.MAX_VALUE + " are supported");
      }
      return (int) array.size(0);
    }

    @Override
    void copy(int[] indices, int from, int to, BatchSlot<?> slot, int i) {
      NativeRows.gather(nativeRows, indices, from, to, slot.rows(i));
    }

    @Override
    public INDArray row(int i) {
      return array.slice(i, 0);
    }
  }

  /** Rows in blocks of Java arrays, copied row by row into the batch buffer. */
  private static final class HeapRows extends RowSource {
    private final Object[] blocks;
    /** starts[k] is the index of block k's first sample; starts[blocks.length] is the sample count. */
    private final int[] starts;
    private final int rowLength;

    HeapRows(DType dtype, Shape sampleShape, Object[] blocks, int[] blockRows) {
      super(total(blockRows), sampleShape, dtype);
      if (blocks.length != blockRows.length) {
        throw new IllegalArgumentException(blocks.length + " blocks but " + blockRows.length + " row counts");
      }
      this.blocks = blocks;
      this.rowLength = Math.toIntExact(sampleShape.elementCount());
      this.starts = new int[blocks.length + 1];
      for (int k = 0; k < blocks.length; k++) {
        Object b = blocks[k];
        if (b == null || b.getClass() != arrayClass(dtype)) {
          throw new IllegalArgumentException("block " + k + " is not a " + arrayClass(dtype).getSimpleName());
        }
        if ((long) blockRows[k] * rowLength > java.lang.reflect.Array.getLength(b)) {
          throw new IllegalArgumentException("block " + k + " holds fewer than " + blockRows[k] + " rows of "
              + rowLength + " elements");
        }
        starts[k + 1] = starts[k] + blockRows[k];
      }
    }

    private static int total(int[] blockRows) {
      long n = 0;
      for (int r : blockRows) {
        if (r < 0) {
          throw new IllegalArgumentException("negative row count " + r);
        }
        n += r;
      }
      if (n > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(n + " samples; at most " + Integer.MAX_VALUE + " are supported");
      }
      return (int) n;
    }

    private static Class<?> arrayClass(DType dtype) {
      switch (dtype) {
        case FLOAT32:
          return float[].class;
        case FLOAT64:
          return double[].class;
        case INT32:
          return int[].class;
        case INT64:
          return long[].class;
        default:
          throw new IllegalArgumentException("Java-array rows hold float32, float64, int32 or int64, not " + dtype);
      }
    }

    /** The block holding sample {@code index}: a binary search over the few block starts. */
    private int block(int index) {
      if (index < 0 || index >= rows()) {
        throw new IndexOutOfBoundsException("sample index " + index + " outside [0, " + rows() + ")");
      }
      int lo = 0;
      int hi = blocks.length - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (starts[mid] <= index) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo;
    }

    @Override
    void copy(int[] indices, int from, int to, BatchSlot<?> slot, int i) {
      CollateTarget views = CollateTarget.of(slot);
      int n = rowLength;
      // One absolute bulk put per row (a memory copy); the switch is per batch, not per row.
      switch (dtype()) {
        case FLOAT32: {
          FloatBuffer dst = views.floats(i);
          for (int r = from; r < to; r++) {
            int k = block(indices[r]);
            dst.put(r * n, (float[]) blocks[k], (indices[r] - starts[k]) * n, n);
          }
          break;
        }
        case FLOAT64: {
          java.nio.DoubleBuffer dst = views.doubles(i);
          for (int r = from; r < to; r++) {
            int k = block(indices[r]);
            dst.put(r * n, (double[]) blocks[k], (indices[r] - starts[k]) * n, n);
          }
          break;
        }
        case INT32: {
          IntBuffer dst = views.ints(i);
          for (int r = from; r < to; r++) {
            int k = block(indices[r]);
            dst.put(r * n, (int[]) blocks[k], (indices[r] - starts[k]) * n, n);
          }
          break;
        }
        default: {
          java.nio.LongBuffer dst = views.longs(i);
          for (int r = from; r < to; r++) {
            int k = block(indices[r]);
            dst.put(r * n, (long[]) blocks[k], (indices[r] - starts[k]) * n, n);
          }
        }
      }
    }

    @Override
    public INDArray row(int i) {
      int k = block(i);
      INDArray out = HostArrays.allocate(dtype(), sampleShape().toLongArray());
      java.nio.ByteBuffer bb = HostArrays.window(out, 0, rowLength);
      int at = (i - starts[k]) * rowLength;
      switch (dtype()) {
        case FLOAT32:
          bb.asFloatBuffer().put(0, (float[]) blocks[k], at, rowLength);
          break;
        case FLOAT64:
          bb.asDoubleBuffer().put(0, (double[]) blocks[k], at, rowLength);
          break;
        case INT32:
          bb.asIntBuffer().put(0, (int[]) blocks[k], at, rowLength);
          break;
        default:
          bb.asLongBuffer().put(0, (long[]) blocks[k], at, rowLength);
      }
      HostArrays.hostWritten(out);
      return out;
    }
  }

  /** Bytes on the heap, decoded into the batch buffer. */
  private static final class ByteRows extends RowSource {
    private final byte[] bytes;
    private final int offset;
    private final int rowLength;
    private final float[] table = new float[256];
    private final int[] ints = new int[256];

    ByteRows(byte[] bytes, int offset, int rows, Shape sampleShape, boolean unsigned, DType dtype, float scale) {
      super(checked(bytes, offset, rows, sampleShape, dtype), sampleShape, dtype);
      this.bytes = bytes;
      this.offset = offset;
      this.rowLength = (int) sampleShape.elementCount();
      for (int v = 0; v < 256; v++) {
        int value = unsigned ? v : (byte) v;
        ints[v] = value;
        table[v] = value * scale;
      }
    }

    /** {@code rows}, once the bytes are known to hold them as {@code dtype}. */
    private static int checked(byte[] bytes, int offset, int rows, Shape sampleShape, DType dtype) {
      if (dtype != DType.FLOAT32 && dtype != DType.INT32) {
        throw new IllegalArgumentException("bytes decode to FLOAT32 or INT32, not " + dtype);
      }
      long length = sampleShape.elementCount();
      if (offset < 0 || rows < 0 || offset + length * rows > bytes.length) {
        throw new IllegalArgumentException(rows + " rows of " + length + " bytes from offset " + offset
            + " need more than the " + bytes.length + " bytes given");
      }
      return rows;
    }

    @Override
    void copy(int[] indices, int from, int to, BatchSlot<?> slot, int i) {
      CollateTarget views = CollateTarget.of(slot);
      int n = rowLength;
      byte[] b = bytes;
      // Decode a row into a heap scratch array, then one bulk put: an element-wise put into a
      // view buffer costs a bounds check and a byte-order step per element.
      if (dtype() == DType.FLOAT32) {
        FloatBuffer dst = views.floats(i);
        float[] t = table;
        float[] row = floatScratch(n);
        for (int r = from; r < to; r++) {
          int src = offset + checkRow(indices[r]) * n;
          for (int k = 0; k < n; k++) {
            row[k] = t[b[src + k] & 0xff];
          }
          dst.put(r * n, row, 0, n);
        }
      } else {
        IntBuffer dst = views.ints(i);
        int[] t = ints;
        int[] row = intScratch(n);
        for (int r = from; r < to; r++) {
          int src = offset + checkRow(indices[r]) * n;
          for (int k = 0; k < n; k++) {
            row[k] = t[b[src + k] & 0xff];
          }
          dst.put(r * n, row, 0, n);
        }
      }
    }

    /** One scratch row per thread (reader threads may fill rows of a batch at once). */
    private final ThreadLocal<float[]> floatRows = new ThreadLocal<>();
    private final ThreadLocal<int[]> intRows = new ThreadLocal<>();

    private float[] floatScratch(int n) {
      float[] a = floatRows.get();
      if (a == null || a.length < n) {
        a = new float[n];
        floatRows.set(a);
      }
      return a;
    }

    private int[] intScratch(int n) {
      int[] a = intRows.get();
      if (a == null || a.length < n) {
        a = new int[n];
        intRows.set(a);
      }
      return a;
    }

    private int checkRow(int index) {
      if (index < 0 || index >= rows()) {
        throw new IndexOutOfBoundsException("sample index " + index + " outside [0, " + rows() + ")");
      }
      return index;
    }

    @Override
    public INDArray row(int i) {
      INDArray out = HostArrays.allocate(dtype(), sampleShape().toLongArray());
      java.nio.ByteBuffer bb = HostArrays.window(out, 0, rowLength);
      int src = offset + checkRow(i) * rowLength;
      for (int k = 0; k < rowLength; k++) {
        int v = bytes[src + k] & 0xff;
        if (dtype() == DType.FLOAT32) {
          bb.putFloat(k * 4, table[v]);
        } else {
          bb.putInt(k * 4, ints[v]);
        }
      }
      HostArrays.hostWritten(out);
      return out;
    }
  }
}
