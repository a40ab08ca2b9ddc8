package dev.minibatch.runtime.io.idx;

import dev.minibatch.DType;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.spi.Rows;
import dev.minibatch.runtime.internal.io.FileBytes;
import dev.minibatch.runtime.internal.io.GzipContent;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shape.Shape;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reads idx files, raw or gzip (recognised by content, not by name), and checks them: the two zero
 * bytes and a known type code in the magic number, the expected magic when one is given, extents
 * whose element counts fit in an int, and that the file holds exactly the bytes its header
 * declares. Every defect is a {@link FileFormatException} naming the file; memory is bounded by the
 * file's size (see {@link #read(Path, int)}).
 */
public final class IdxFile {
  /** The magic number of MNIST image files: uint8, rank 3. */
  public static final int MNIST_IMAGES_MAGIC = 2051;
  /** The magic number of MNIST label files: uint8, rank 1. */
  public static final int MNIST_LABELS_MAGIC = 2049;

  private IdxFile() {}

  /**
   * Reads any idx file.
   *
   * @throws FileFormatException naming the file, the expected and the found value, for a bad magic
   *     number, an unknown type code, extents whose element count overflows, a length that differs
   *     from the header's, or corrupt gzip data
   * @throws java.io.UncheckedIOException naming the file if it cannot be read
   */
  public static IdxArray read(Path file) {
    return read(file, -1);
  }

  /**
   * Reads an idx file whose magic number must be {@code expectedMagic} (e.g. {@link
   * #MNIST_IMAGES_MAGIC}), or any magic number for -1.
   *
   * <p>Memory is bounded by the file: a gzip file's header is read first, and extents that need
   * more bytes than the compressed file can expand to ({@link GzipContent#MAX_RATIO} times its
   * size) are rejected before anything is allocated; the content is then decompressed into one
   * array of exactly the declared size.
   *
   * @throws FileFormatException as {@link #read(Path)}, and if the magic number differs
   */
  public static IdxArray read(Path file, int expectedMagic) {
    String name = file.toString();
    byte[] raw = FileBytes.readRaw(file);
    if (!FileBytes.isGzip(raw)) {
      return parse(name, raw, expectedMagic);
    }
    try (GzipContent in = GzipContent.of(name, raw)) {
      return inflate(name, in, raw.length, expectedMagic);
    }
  }

  /** Reads the header from {@code in}, checks it against what the gzip file can hold, then the rest. */
  private static IdxArray inflate(String file, GzipContent in, int compressed, int expectedMagic) {
    byte[] head = new byte[4 + 4 * 255];
    int n = in.read(head, 0, 4);
    if (n < 4) {
      return parse(file, java.util.Arrays.copyOf(head, n), expectedMagic);
    }
    int rank = head[3] & 0xff;
    n += in.read(head, 4, 4 * rank);
    Header h = header(file, head, n, expectedMagic);
    long total = h.headerBytes() + h.dataBytes();
    if (total > in.maxBytes()) {
      throw new FileFormatException(file, "the header declares " + h.describe() + " = " + total + " bytes with the "
          + h.headerBytes() + "-byte header, more than the " + compressed + "-byte gzip file can hold (deflate expands at most "
          + GzipContent.MAX_RATIO + " times): the extents are corrupt");
    }
    byte[] bytes = new byte[(int) total];
    System.arraycopy(head, 0, bytes, 0, h.headerBytes());
    int got = h.headerBytes() + in.read(bytes, h.headerBytes(), (int) h.dataBytes());
    if (got < total) {
      throw new FileFormatException(file, "truncated: the header declares " + h.describe() + " = " + total
          + " bytes with the " + h.headerBytes() + "-byte header, found " + got + " bytes (decompressed)");
    }
    long rest = in.skipRest(in.maxBytes());
    if (rest > 0) {
      throw new FileFormatException(file, "has trailing bytes: the header declares " + h.describe() + " = " + total
          + " bytes with the " + h.headerBytes() + "-byte header, found " + (total + rest) + " bytes (decompressed)");
    }
    return new IdxArray(file, h.type(), h.dims(), bytes, h.headerBytes());
  }

  /**
   * Parses the bytes of an (un-gzipped) idx file; {@code expectedMagic} is -1 for any.
   *
   * @param file the name used in error messages
   * @throws FileFormatException as {@link #read(Path, int)}
   */
  public static IdxArray parse(String file, byte[] bytes, int expectedMagic) {
    Header h = header(file, bytes, bytes.length, expectedMagic);
    long expected = h.headerBytes() + h.dataBytes();
    if (bytes.length != expected) {
      throw new FileFormatException(file, (bytes.length < expected ? "truncated" : "has trailing bytes")
          + ": the header declares " + h.describe() + " = " + expected + " bytes with the " + h.headerBytes()
          + "-byte header, found " + bytes.length + " bytes");
    }
    return new IdxArray(file, h.type(), h.dims(), bytes, h.headerBytes());
  }

  /** A checked idx header: the element type, the extents, and the sizes of header and elements. */
  private record Header(IdxType type, int[] dims, int headerBytes, long dataBytes) {
    String describe() {
      return shape(dims) + " " + type.name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * The header in {@code bytes[0, length)}: magic, type code, rank, and extents whose element
   * counts (all elements, and one sample's) fit in an int and whose bytes fit in one Java array.
   */
  private static Header header(String file, byte[] bytes, int length, int expectedMagic) {
    if (length < 4) {
      throw new FileFormatException(file, "too short for an idx header: expected at least 4 bytes, found " + length);
    }
    int magic = readInt(bytes, 0);
    if (expectedMagic >= 0 && magic != expectedMagic) {
      throw new FileFormatException(file, "bad magic number: expected " + expectedMagic + " (" + describe(expectedMagic)
          + "), found " + magic + " (" + describe(magic) + ")");
    }
    IdxType type = IdxType.ofCode(bytes[2] & 0xff);
    if (bytes[0] != 0 || bytes[1] != 0 || type == null) {
      throw new FileFormatException(file, "not an idx file: expected a magic number 0x0000TTRR with a type code TT in "
          + "{08, 09, 0B, 0C, 0D, 0E}, found 0x" + String.format("%08X", magic));
    }
    int rank = bytes[3] & 0xff;
    if (rank == 0) {
      throw new FileFormatException(file, "idx rank is 0; expected at least one axis (the sample axis)");
    }
    int header = 4 + 4 * rank;
    if (length < header) {
      throw new FileFormatException(file, "truncated header: rank " + rank + " needs " + header + " header bytes, found "
          + length + " bytes in all");
    }
    int[] dims = new int[rank];
    long sample = 1;
    for (int i = 0; i < rank; i++) {
      dims[i] = readInt(bytes, 4 + 4 * i);
      if (dims[i] < 0) {
        throw new FileFormatException(file, "axis " + i + " has a negative extent " + dims[i] + " (header offset "
            + (4 + 4 * i) + ")");
      }
      if (i > 0) {
        // One sample's count alone must fit, even when axis 0 is 0 and the total is 0.
        sample *= dims[i];
        if (sample > Integer.MAX_VALUE) {
          throw new FileFormatException(file, "extents " + shape(dims, i + 1) + "... declare more than "
              + Integer.MAX_VALUE + " elements per sample; not supported");
        }
      }
    }
    long elements = sample * dims[0];
    if (elements > Integer.MAX_VALUE) {
      throw new FileFormatException(file, "extents " + shape(dims) + " declare " + elements + " elements, more than "
          + Integer.MAX_VALUE + "; not supported");
    }
    long dataBytes = elements * type.byteSize();
    if (header + dataBytes > GzipContent.MAX_ARRAY) {
      throw new FileFormatException(file, "extents " + shape(dims) + " " + type.name().toLowerCase(java.util.Locale.ROOT)
          + " declare " + dataBytes + " bytes of elements, more than one Java array holds; not supported");
    }
    return new Header(type, dims, header, dataBytes);
  }

  private static String shape(int[] dims) {
    return shape(dims, dims.length);
  }

  private static String shape(int[] dims, int upTo) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < upTo; i++) {
      sb.append(i == 0 ? "" : " x ").append(dims[i]);
    }
    return sb.toString();
  }

  private static String describe(int magic) {
    IdxType t = IdxType.ofCode((magic >>> 8) & 0xff);
    if ((magic >>> 16) != 0 || t == null) {
      return "not an idx magic number";
    }
    return t.name().toLowerCase(java.util.Locale.ROOT) + ", rank " + (magic & 0xff);
  }

  private static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
  }

  /**
   * The content of one idx file: its element type, its extents (axis 0 is the sample axis), and its
   * elements, kept as the file's big-endian bytes and converted on request. Immutable.
   *
   * <p>{@link #toFloatINDArray} and {@link #toIntINDArray} decode the bytes straight into a new
   * INDArray's memory: the file's bytes are read once and each element is written once.
   */
  public static final class IdxArray {
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
      int index = checkIndex(i);
      switch (type) {
        case FLOAT32:
          return data.getFloat(index * 4);
        case FLOAT64:
          return data.getDouble(index * 8);
        default:
          return intAt(index);
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
     * The samples (axis 0) as a {@link Rows} of {@code sampleShape} (whose element count must be
     * {@link #sampleSize()}) delivering {@code dtype}, FLOAT32 (times {@code scale}) or INT32. 8-bit
     * files stay bytes, decoded into each batch buffer as it is filled; wider types are decoded once
     * into an INDArray ({@link #toFloatINDArray}, {@link #toIntINDArray}).
     *
     * @throws IllegalArgumentException for another dtype or a sample shape of another size
     * @throws IllegalStateException for INT32 from a float32 or float64 file
     * @throws FileFormatException if the file holds no samples or its samples hold no elements
     */
    public Rows rows(Shape sampleShape, DType dtype, float scale) {
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

    /** Element {@code i} of an integer type (uint8 as 0..255): the one decoding of the four. */
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

  /** The element types of the idx format, with their header codes. */
  public enum IdxType {
    /** Unsigned byte, code 0x08. */
    UINT8(0x08, 1, DType.UINT8),
    /** Signed byte, code 0x09. */
    INT8(0x09, 1, DType.INT8),
    /** Big-endian 16-bit integer, code 0x0B. */
    INT16(0x0B, 2, DType.INT16),
    /** Big-endian 32-bit integer, code 0x0C. */
    INT32(0x0C, 4, DType.INT32),
    /** Big-endian IEEE float, code 0x0D. */
    FLOAT32(0x0D, 4, DType.FLOAT32),
    /** Big-endian IEEE double, code 0x0E. */
    FLOAT64(0x0E, 8, DType.FLOAT64);

    private final int code;
    private final int byteSize;
    private final DType dtype;

    IdxType(int code, int byteSize, DType dtype) {
      this.code = code;
      this.byteSize = byteSize;
      this.dtype = dtype;
    }

    /** The code in the third header byte. */
    public int code() {
      return code;
    }

    /** Bytes per element. */
    public int byteSize() {
      return byteSize;
    }

    /** The matching minibatch element type. */
    public DType dtype() {
      return dtype;
    }

    /** The type with header code {@code code}, or null if there is none. */
    public static @Nullable IdxType ofCode(int code) {
      for (IdxType t : values()) {
        if (t.code == code) {
          return t;
        }
      }
      return null;
    }

    /** The magic number (first four header bytes as a big-endian int) of this type at {@code rank}. */
    public int magic(int rank) {
      return (code << 8) | rank;
    }
  }
}
