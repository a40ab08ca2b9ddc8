package dev.minibatch.runtime.io.idx;

import dev.minibatch.runtime.io.FileBytes;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.GzipContent;
import java.nio.file.Path;

/**
 * Reads idx files, raw or gzip (recognised by content, not by name), and checks them: the two zero
 * bytes and a known type code in the magic number, the expected magic when one is given, extents
 * whose element counts fit in an int, and that the file holds exactly the bytes its header
 * declares. Every defect is a {@link FileFormatException} naming the file; memory is bounded by the
 * file's size (see {@link #read(Path, int)}).
 */
public final class IdxReader {
  /** The magic number of MNIST image files: uint8, rank 3. */
  public static final int MNIST_IMAGES_MAGIC = 2051;
  /** The magic number of MNIST label files: uint8, rank 1. */
  public static final int MNIST_LABELS_MAGIC = 2049;

  private IdxReader() {}

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
}
