package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * The decompressed content of a gzip file held in memory, read as a stream, with the most bytes it
 * can honestly hold: deflate expands its input at most {@value #MAX_RATIO} times, so a stream that
 * yields more than {@link #maxBytes()} is corrupt, and a caller can reject a header that declares
 * more before allocating anything. Every failure of the compressed data (a bad header, a corrupt
 * block, a truncated stream, a wrong checksum or length in a trailer) is a {@link
 * FileFormatException} naming the file and the offset in the decompressed content where it
 * happened.
 */
public final class GzipContent implements AutoCloseable {
  /**
   * The largest expansion deflate can produce: a 258-byte match coded in 2 bits gives at most about
   * 1032 output bytes per input byte. Members' headers and trailers only lower the ratio.
   */
  public static final int MAX_RATIO = 1032;

  /** The largest Java array the JVM reliably allocates; longer content is not supported. */
  public static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final String file;
  private final long maxBytes;
  private final InputStream in;
  private long position;

  private GzipContent(String file, byte[] gz) {
    this.file = file;
    this.maxBytes = Math.min(MAX_ARRAY, (long) gz.length * MAX_RATIO);
    try {
      this.in = new GZIPInputStream(new ByteArrayInputStream(gz), 1 << 16);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /**
   * The decompressed content of {@code gz}, the bytes of {@code file}.
   *
   * @throws FileFormatException naming the file if the gzip header is not valid
   */
  public static GzipContent of(String file, byte[] gz) {
    return new GzipContent(file, gz);
  }

  /**
   * The most bytes the content can hold: {@value #MAX_RATIO} times the compressed size, and at most
   * the largest Java array.
   */
  public long maxBytes() {
    return maxBytes;
  }

  /** The number of decompressed bytes read so far. */
  public long position() {
    return position;
  }

  /**
   * Reads {@code len} bytes into {@code dst[off ..]}, fewer only at the end of the content.
   *
   * @return the number of bytes read
   * @throws FileFormatException naming the file and the offset if the compressed data is corrupt
   *     or truncated
   */
  public int read(byte[] dst, int off, int len) {
    // One inflate step at a time, counted as it returns: a truncated or corrupt stream fails inside
    // a later step, and the offset it reports must include everything decompressed before it (a
    // single readNBytes would lose the count of a large read that fails half-way).
    int n = 0;
    try {
      while (n < len) {
        int got = in.read(dst, off + n, len - n);
        if (got < 0) {
          break;
        }
        n += got;
        position += got;
      }
      return n;
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /**
   * Reads to the end and counts the remaining bytes without keeping them, stopping (and returning
   * {@code limit + 1}) once more than {@code limit} remain. Reading to the end also checks the
   * trailers' checksums.
   */
  public long skipRest(long limit) {
    byte[] scratch = new byte[1 << 16];
    long n = 0;
    while (n <= limit) {
      int got = read(scratch, 0, scratch.length);
      if (got == 0) {
        return n;
      }
      n += got;
    }
    return n;
  }

  /**
   * The whole content from the current position, in an array no larger than needed: {@code
   * sizeHint} (the size the trailer declares, which may lie) is used for the first allocation only
   * when it is within {@link #maxBytes()}.
   *
   * @throws FileFormatException if the content exceeds {@link #maxBytes()} (corrupt data), or is
   *     corrupt or truncated
   */
  public byte[] readAll(long sizeHint) {
    int capacity = (int) Math.max(1 << 12, Math.min(sizeHint, maxBytes));
    byte[] out = new byte[(int) Math.min(capacity, maxBytes + 1)];
    int n = 0;
    while (true) {
      int got = read(out, n, out.length - n);
      n += got;
      if (n < out.length) {
        return java.util.Arrays.copyOf(out, n);
      }
      if (n > maxBytes) {
        throw new FileFormatException(file, "gzip data decompresses to more than " + maxBytes + " bytes, over "
            + MAX_RATIO + " times its compressed size, which deflate cannot produce: the compressed data is corrupt");
      }
      // Grow by doubling, never past one byte over the bound (to see whether the bound is exceeded).
      out = java.util.Arrays.copyOf(out, (int) Math.min((long) out.length * 2, maxBytes + 1));
    }
  }

  private FileFormatException failure(IOException e) {
    String at = " at decompressed offset " + position;
    if (e instanceof EOFException) {
      return new FileFormatException(file, "gzip data is truncated" + at + " (unexpected end of the compressed stream)", e);
    }
    return new FileFormatException(file, "corrupt gzip data" + at + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      // A stream over a byte array has nothing to release; there is nothing to report.
    }
  }
}
