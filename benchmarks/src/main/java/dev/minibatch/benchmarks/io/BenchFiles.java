package dev.minibatch.benchmarks.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Locating test files and cleaning temporary directories for the io benchmarks. */
final class BenchFiles {
  private BenchFiles() {}

  /** {@code relative} under the working directory or its parent (Maven runs in the module). */
  static Path find(String relative) {
    for (Path base : new Path[] {Path.of(""), Path.of("..")}) {
      Path p = base.resolve(relative).toAbsolutePath().normalize();
      if (Files.isDirectory(p)) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find " + relative + " from " + Path.of("").toAbsolutePath());
  }

  static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
