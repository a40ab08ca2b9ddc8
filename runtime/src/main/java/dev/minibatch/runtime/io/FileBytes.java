package dev.minibatch.runtime.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Reads whole files into memory, transparently un-gzipping; I/O errors name the file. */
public final class FileBytes {
  private FileBytes() {}

  /** True if {@code head} starts with the gzip magic bytes {@code 1f 8b}. */
  public static boolean isGzip(byte[] head) {
    return head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
  }

  /**
   * The uncompressed size in the gzip trailer (ISIZE, the last four bytes, little-endian: the size
   * modulo 2^32 of the last member), capped at the largest Java array; only a first guess.
   */
  private static int declaredSize(byte[] gz) {
    if (gz.length < 18) {
      return 0;
    }
    int n = gz.length;
    long size = (gz[n - 4] & 0xffL) | (gz[n - 3] & 0xffL) << 8 | (gz[n - 2] & 0xffL) << 16 | (gz[n - 1] & 0xffL) << 24;
    return (int) Math.min(size, Integer.MAX_VALUE - 8);
  }

  /**
   * Decompresses into an array of the declared size (no growing and re-copying for the common
   * single-member file); content beyond it (several members) is appended, content short of it
   * trimmed.
   */
  private static byte[] inflate(InputStream in, int declared) throws IOException {
    byte[] out = new byte[declared];
    int n = in.readNBytes(out, 0, declared);
    if (n < declared) {
      return java.util.Arrays.copyOf(out, n);
    }
    byte[] rest = in.readAllBytes();
    if (rest.length == 0) {
      return out;
    }
    byte[] all = java.util.Arrays.copyOf(out, Math.addExact(n, rest.length));
    System.arraycopy(rest, 0, all, n, rest.length);
    return all;
  }

  /**
   * The content of {@code file}; a gzip file (recognised by its magic bytes, not its name) is
   * decompressed.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   * @throws FileFormatException if the file looks like gzip but is corrupt or truncated, or is too
   *     large for one Java array
   */
  public static byte[] readAll(Path file) {
    byte[] raw;
    try {
      raw = Files.readAllBytes(file);
    } catch (OutOfMemoryError e) {
      throw new FileFormatException(file.toString(), "too large to read into memory", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e, e);
    }
    if (!isGzip(raw)) {
      return raw;
    }
    try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(raw), 1 << 16)) {
      return inflate(in, declaredSize(raw));
    } catch (java.io.EOFException e) {
      throw new FileFormatException(file.toString(), "gzip data is truncated (unexpected end of the compressed stream)", e);
    } catch (IOException e) {
      throw new FileFormatException(file.toString(), "corrupt gzip data: " + e.getMessage(), e);
    } catch (OutOfMemoryError e) {
      throw new FileFormatException(file.toString(), "decompressed content too large to read into memory", e);
    }
  }
}
