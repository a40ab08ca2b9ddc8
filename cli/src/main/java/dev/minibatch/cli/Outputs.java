package dev.minibatch.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The check that an output file can be written, made before a command reads anything. */
final class Outputs {
  private Outputs() {}

  /**
   * Fails, naming {@code what} and the file, if {@code file} is a folder or its folder is missing
   * or not writable.
   *
   * @throws UncheckedIOException an input error for the command line (exit code 3)
   */
  static void checkWritable(Path file, String what) {
    Path folder = file.toAbsolutePath().getParent();
    String problem = Files.isDirectory(file) ? "it is a folder"
        : folder == null || !Files.isDirectory(folder) ? "no such folder " + folder
        : !Files.isWritable(folder) ? "the folder " + folder + " is not writable" : null;
    if (problem != null) {
      String message = "cannot write " + what + " to " + file + ": " + problem;
      throw new UncheckedIOException(message, new IOException(message));
    }
  }
}
