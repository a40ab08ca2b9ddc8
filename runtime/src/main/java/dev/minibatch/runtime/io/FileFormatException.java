package dev.minibatch.runtime.io;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A file whose content is not what its format requires: a wrong magic number, a truncated file, a
 * row of the wrong length, a field that is not a number, a missing dataset. The message names the
 * file and says what was expected and what was found.
 */
public class FileFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String file;

  /**
   * An error about {@code file}; the message is prefixed with the file name.
   *
   * @param file the file at fault
   * @param message what was expected and what was found
   */
  public FileFormatException(Path file, String message) {
    this(file.toString(), message, null);
  }

  /**
   * An error about {@code file} named as a string (a file inside a directory, a file and a
   * dataset); the message is prefixed with it.
   *
   * @param file the file at fault
   * @param message what was expected and what was found
   */
  public FileFormatException(String file, String message) {
    this(file, message, null);
  }

  /**
   * An error about {@code file}, with a cause; the message is prefixed with the file name.
   *
   * @param file the file at fault, as the user named it
   * @param message what was expected and what was found
   * @param cause the underlying failure, or null
   */
  public FileFormatException(String file, String message, @Nullable Throwable cause) {
    super(file + ": " + message, cause);
    this.file = file;
  }

  /** The file at fault. */
  public String file() {
    return file;
  }
}
