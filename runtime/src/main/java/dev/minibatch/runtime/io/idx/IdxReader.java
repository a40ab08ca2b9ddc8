package dev.minibatch.runtime.io.idx;

import dev.minibatch.runtime.io.FileBytes;
import dev.minibatch.runtime.io.FileFormatException;
import java.nio.file.Path;

/**
 * Reads idx files, raw or gzip (recognised by content, not by name), and checks them: the two zero
 * bytes and a known type code in the magic number, the expected magic when one is given, and that
 * the file holds exactly the bytes its header declares.
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
   *     number, an unknown type code, or a length that differs from the header's
   * @throws java.io.UncheckedIOException naming the file if it cannot be read
   */
  public static IdxArray read(Path file) {
    return parse(file.toString(), FileBytes.readAll(file), -1);
  }

  /**
   * Reads an idx file whose magic number must be {@code expectedMagic} (e.g. {@link
   * #MNIST_IMAGES_MAGIC}).
   *
   * @throws FileFormatException as {@link #read(Path)}, and if the magic number differs
   */
  public static IdxArray read(Path file, int expectedMagic) {
    return parse(file.toString(), FileBytes.readAll(file), expectedMagic);
  }

  /**
   * Parses the bytes of an (un-gzipped) idx file; {@code expectedMagic} is -1 for any.
   *
   * @param file the name used in error messages
   */
  public static IdxArray parse(String file, byte[] bytes, int expectedMagic) {
    if (bytes.length < 4) {
      throw new FileFormatException(file, "too short for an idx header: expected at least 4 bytes, found " + bytes.length);
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
    long header = 4L + 4L * rank;
    if (bytes.length < header) {
      throw new FileFormatException(file, "truncated header: rank " + rank + " needs " + header + " header bytes, found "
          + bytes.length + " bytes in all");
    }
    int[] dims = new int[rank];
    long elements = 1;
    for (int i = 0; i < rank; i++) {
      dims[i] = readInt(bytes, 4 + 4 * i);
      if (dims[i] < 0) {
        throw new FileFormatException(file, "axis " + i + " has a negative extent " + dims[i]);
      }
      elements *= dims[i];
      if (elements > Integer.MAX_VALUE) {
        throw new FileFormatException(file, "declares more than " + Integer.MAX_VALUE + " elements; not supported");
      }
    }
    long expected = header + elements * type.byteSize();
    if (bytes.length != expected) {
      String shape = shape(dims) + " " + type.name().toLowerCase(java.util.Locale.ROOT);
      throw new FileFormatException(file, (bytes.length < expected ? "truncated" : "has trailing bytes")
          + ": the header declares " + shape + " = " + expected + " bytes with the " + header
          + "-byte header, found " + bytes.length + " bytes");
    }
    return new IdxArray(file, type, dims, bytes, (int) header);
  }

  private static String shape(int[] dims) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < dims.length; i++) {
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
