package dev.minibatch.cli;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.UncheckedIOException;
import java.nio.file.InvalidPathException;
import org.jspecify.annotations.Nullable;

/**
 * What an exception from a command means for the user: its exit code and the one line that says it.
 * A data error is often wrapped on its way out — a provider's worker fails on a record and the
 * pipeline rethrows it as a stage failure on the consumer's thread — so the cause chain is searched
 * for the runtime's {@link FileFormatException} (which names the file and the record) or an I/O
 * failure; only what is left is a bug.
 */
record Failure(int exitCode, String message) {
  /** The exit code and message for {@code e}, thrown by a command. */
  static Failure of(Throwable e) {
    Throwable data = dataError(e);
    if (data != null) {
      return new Failure(Minibatch.ExitCode.INPUT, String.valueOf(data.getMessage()));
    }
    if (e instanceof IllegalArgumentException || e instanceof InvalidPathException) {
      // The builders' checks of values against the input (a label column the file does not have).
      // A value out of range whatever the file is a usage error, thrown before (OptionRange).
      return new Failure(Minibatch.ExitCode.INPUT, String.valueOf(e.getMessage()));
    }
    return new Failure(Minibatch.ExitCode.INTERNAL, String.valueOf(e));
  }

  /** True if the stack trace helps: for bugs always, for data errors only with {@code --verbose}. */
  boolean showsStackTrace(boolean verbose) {
    return verbose || exitCode == Minibatch.ExitCode.INTERNAL;
  }

  private static @Nullable Throwable dataError(Throwable e) {
    // Bounded, in case a cause chain loops.
    Throwable t = e;
    for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
      if (t instanceof FileFormatException || t instanceof UncheckedIOException) {
        return t;
      }
    }
    return null;
  }
}
