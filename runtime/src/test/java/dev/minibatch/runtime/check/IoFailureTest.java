package dev.minibatch.runtime.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IoFailureTest {
  @Test
  void namesTheActionTheFileAndTheReasonAndKeepsTheCause() {
    IOException cause = new IOException("No space left on device");
    UncheckedIOException e = IoFailure.of("write", Path.of("out", "part-3.parquet"), cause);
    assertEquals("cannot write out/part-3.parquet: No space left on device", e.getMessage());
    assertSame(cause, e.getCause());
  }

  @Test
  void aPlaceInTheFileIsPartOfWhat() {
    assertEquals("cannot read data.txt, line 7: Input length = 1",
        IoFailure.of("read", "data.txt, line 7", new IOException("Input length = 1")).getMessage());
  }

  @Test
  void aMissingFileIsSaidInWordsNotByRepeatingItsPath(@TempDir Path dir) {
    Path missing = dir.resolve("absent.csv");
    NoSuchFileException real = assertThrowsIo(() -> Files.readAllBytes(missing));
    assertEquals("cannot read " + missing + ": no such file", IoFailure.of("read", missing, real).getMessage());
  }

  @Test
  void theFileSystemExceptionsWithoutAReasonAreNamedInWords() {
    assertEquals("cannot write a: permission denied", IoFailure.of("write", "a", new AccessDeniedException("a")).getMessage());
    assertEquals("cannot create a: it already exists",
        IoFailure.of("create", "a", new FileAlreadyExistsException("a")).getMessage());
    assertEquals("cannot list a: Not a directory",
        IoFailure.of("list", "a", new FileSystemException("a", null, "Not a directory")).getMessage());
  }

  @Test
  void anExceptionWithoutAMessageIsNamedByItsType() {
    assertEquals("cannot read a.rec: EOFException", IoFailure.of("read", "a.rec", new EOFException()).getMessage());
  }

  private interface IoAction {
    void run() throws IOException;
  }

  private static NoSuchFileException assertThrowsIo(IoAction action) {
    try {
      action.run();
    } catch (NoSuchFileException e) {
      return e;
    } catch (IOException e) {
      throw new AssertionError("expected NoSuchFileException, got " + e, e);
    }
    throw new AssertionError("expected NoSuchFileException, nothing was thrown");
  }
}
