package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads whole files into memory, transparently un-gzipping; I/O errors name the file. Memory is
 * bounded by the file: a raw file costs its size, a gzip file at most {@link GzipContent#MAX_RATIO}
 * times its size, whatever its trailer declares.
 */
public final class FileBytes {
  private FileBytes() {}

  /** True if {@code head} starts with the gzip magic bytes {@code 1f 8b}. */
  public static boolean isGzip(byte[] head) {
    return head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
  }

  /**
   * The uncompressed size in the gzip trailer (ISIZE, the last four bytes, little-endian: the size
   * modulo 2^32 of the last member); only a hint for the first allocation, never trusted.
   */
  private static long declaredSize(byte[] gz) {
    if (gz.length < 18) {
      return 0;
    }
    int n = gz.length;
    return (gz[n - 4] & 0xffL) | (gz[n - 3] & 0xffL) << 8 | (gz[n - 2] & 0xffL) << 16 | (gz[n - 1] & 0xffL) << 24;
  }

  /**
   * The bytes of {@code file} as stored (not decompressed).
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   * @throws FileFormatException if it is too large for one Java array
   */
  public static byte[] readRaw(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (OutOfMemoryError e) {
      throw new FileFormatException(file.toString(), "too large to read into memory", e);
    } catch (IOException e) {
      throw IoFailure.of("read", file, e);
    }
  }

  /**
   * The content of {@code file}; a gzip file (recognised by its magic bytes, not its name) is
   * decompressed.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   * @throws FileFormatException if the file looks like gzip but is corrupt or truncated, if it
   *     decompresses to more than {@link GzipContent#MAX_RATIO} times its size (which deflate cannot
   *     produce), or if it is too large for one Java array
   */
  public static byte[] readAll(Path file) {
    byte[] raw = readRaw(file);
    if (!isGzip(raw)) {
      return raw;
    }
    // The trailer's size may lie: the content grows as it inflates, up to what deflate can produce.
    try (GzipContent content = GzipContent.of(file.toString(), raw)) {
      return content.readAll(declaredSize(raw));
    }
  }
}
