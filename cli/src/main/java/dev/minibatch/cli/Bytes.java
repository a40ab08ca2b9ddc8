package dev.minibatch.cli;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.Location;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/** Byte counts for people. */
final class Bytes {
  private Bytes() {}

  /**
   * The bytes a local location holds: a file's length, or the files of a directory (a shard set, a
   * folder of images) summed; -1 for a location on another file system, which is not listed here.
   */
  static long length(Location location) {
    if (!location.isLocal()) {
      return -1;
    }
    Path file = location.path();
    try {
      if (!Files.isDirectory(file)) {
        return Files.size(file);
      }
      try (Stream<Path> all = Files.walk(file)) {
        long sum = 0;
        for (Path p : (Iterable<Path>) all::iterator) {
          sum += Files.isRegularFile(p) ? Files.size(p) : 0;
        }
        return sum;
      }
    } catch (IOException e) {
      throw IoFailure.of("read", "the size of " + file, e);
    }
  }

  /** {@code " (1,648,877 bytes)"} of a local location, nothing for another. */
  static String size(Location location) {
    long n = length(location);
    return n < 0 ? "" : " (" + count(n) + ")";
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
