package dev.minibatch.runtime.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * An I/O failure with one phrasing: {@code "cannot <action> <what>: <reason>"}, for example
 * {@code "cannot read data.csv: no such file"} or {@code "cannot write part-3.parquet: No space
 * left on device"}, with the {@link IOException} as the cause. {@code what} names the file and,
 * where known, the place in it ({@code "data.txt, line 7"}).
 *
 * <p>The reason is the exception's own words, except for the {@code java.nio.file} exceptions whose
 * message is only the path again: those say what happened ("no such file", "permission denied").
 */
public final class IoFailure {
  private IoFailure() {}

  /** The exception to throw: {@code throw IoFailure.of("read", file, e);}. */
  public static UncheckedIOException of(String action, Object what, IOException cause) {
    return new UncheckedIOException("cannot " + action + " " + what + ": " + reason(cause), cause);
  }

  /** What went wrong, in words, without repeating the path that {@code what} already names. */
  static String reason(IOException e) {
    if (e instanceof FileSystemException fs) {
      if (fs.getReason() != null) {
        return fs.getReason();
      }
      if (fs instanceof NoSuchFileException) {
        return "no such file";
      }
      if (fs instanceof AccessDeniedException) {
        return "permission denied";
      }
      if (fs instanceof FileAlreadyExistsException) {
        return "it already exists";
      }
      if (fs instanceof NotDirectoryException) {
        return "not a directory";
      }
      if (fs instanceof DirectoryNotEmptyException) {
        return "the directory is not empty";
      }
      return fs.getClass().getSimpleName();
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
  }
}
