package dev.minibatch.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Byte counts for people. */
final class Bytes {
  private Bytes() {}

  /** {@code 1,648,877 bytes} of the file. */
  static String size(Path file) {
    try {
      return count(Files.size(file));
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }

  /** {@code 31,400,000 bytes}. */
  static String count(long bytes) {
    return String.format(Locale.ROOT, "%,d bytes", bytes);
  }

  /** Bytes per second in MB/s (10^6). */
  static String rate(double bytes, double seconds) {
    return String.format(Locale.ROOT, "%.1f MB/s", bytes / 1e6 / Math.max(seconds, 1e-9));
  }
}
