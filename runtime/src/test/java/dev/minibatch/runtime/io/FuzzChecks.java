package dev.minibatch.runtime.io;

import com.sun.management.ThreadMXBean;
import dev.minibatch.runtime.BatchProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What every fuzz target asserts about one input: reading it either succeeds or fails with a
 * {@link FileFormatException} that names the file (or an {@link UncheckedIOException}); any other
 * throwable escapes and is a finding. The heap allocated on the calling thread must stay within a
 * budget set by the input's size, so a tiny file that makes a reader allocate gigabytes is a
 * finding too, even when the machine has the memory. A parser of text that is not a file (a
 * checkpoint's state line, a manifest on the class path) is held to the same contract with {@link
 * #checkText}: its errors are {@link IllegalArgumentException}s whose message starts with the name
 * of what it read.
 */
public final class FuzzChecks {
  /** A fixed allowance for parsing, ND4J bookkeeping and one batch: "a few MiB" and then some. */
  private static final long BASE_BUDGET = 48L << 20;

  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  static {
    // ND4J's one-time start (backend, native libraries, op tables) allocates ~150 MB; not the input's.
    Nd4j.create(DataType.FLOAT, 2, 2).addi(1);
  }

  private FuzzChecks() {}

  /** A fuzz target's body; anything it throws is judged by {@link #check}. */
  @FunctionalInterface
  public interface Body {
    /** Reads the file under test. */
    void run();
  }

  /**
   * Runs {@code body}, which reads {@code file} (of {@code inputBytes} bytes, expanding at most
   * {@code expansion} times, e.g. 1 for raw formats, deflate's 1032 for compressed ones), and
   * asserts the contract above.
   */
  public static void check(Path file, long inputBytes, long expansion, Body body) {
    check(file.toString(), inputBytes, expansion, body);
  }

  /**
   * {@link #check(Path, long, long, Body)} for a file named by a location string ({@code file:/…}, a
   * directory whose files {@code body} reads): a {@link FileFormatException} must name a file whose
   * location starts with {@code location}, an {@link UncheckedIOException} must contain it.
   */
  public static void check(String location, long inputBytes, long expansion, Body body) {
    check(location, inputBytes, expansion, 0, body);
  }

  /**
   * {@link #check(String, long, long, Body)} with {@code allowance} bytes more than the fixed
   * budget, for a third-party decoder's working memory that does not scale with the input (say
   * what it is where it is used).
   */
  public static void check(String location, long inputBytes, long expansion, long allowance, Body body) {
    budget(inputBytes, expansion, allowance, () -> allocatedBy(location, body));
  }

  /**
   * The contract for a parser of text that is not a file: {@code body} succeeds or throws an {@link
   * IllegalArgumentException} whose message starts with {@code source} (what the text is, e.g.
   * "iteration state"); anything else escapes and is a finding, and so is a heap allocation above
   * the budget of an input of {@code inputBytes}.
   */
  public static void checkText(String source, long inputBytes, Body body) {
    budget(inputBytes, 1, 0, () -> {
      long before = THREADS.getCurrentThreadAllocatedBytes();
      try {
        body.run();
      } catch (IllegalArgumentException e) {
        if (e.getMessage() == null || !e.getMessage().startsWith(source)) {
          throw new AssertionError("the error does not start with '" + source + "': " + e.getMessage(), e);
        }
      }
      return THREADS.getCurrentThreadAllocatedBytes() - before;
    });
  }

  private static void budget(long inputBytes, long expansion, long allowance,
      java.util.function.LongSupplier allocatedByBody) {
    // Twice the largest content the input can honestly expand to: one copy read, one decoded.
    long budget = BASE_BUDGET + allowance + 2 * inputBytes * expansion;
    long allocated = allocatedByBody.getAsLong();
    if (allocated > budget) {
      // The first run of a path also pays for loading classes; only a warm run's bytes count.
      allocated = allocatedByBody.getAsLong();
    }
    if (allocated > budget) {
      throw new AssertionError("reading a " + inputBytes + "-byte file allocated " + allocated + " bytes on the heap, over the "
          + budget + "-byte budget");
    }
  }

  /** The heap bytes {@code body} allocates on this thread, asserting the failure contract. */
  private static long allocatedBy(String file, Body body) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      body.run();
    } catch (FileFormatException e) {
      // The file may carry a position, as CSV's "file:line" does.
      if (!e.file().startsWith(file) || !e.getMessage().startsWith(e.file() + ": ")) {
        throw new AssertionError("the error does not name the file " + file + " first: " + e.getMessage(), e);
      }
    } catch (UncheckedIOException e) {
      if (e.getMessage() == null || !e.getMessage().contains(file)) {
        throw new AssertionError("the I/O error does not name the file " + file + ": " + e.getMessage(), e);
      }
    }
    return THREADS.getCurrentThreadAllocatedBytes() - before;
  }

  /** Iterates one epoch of {@code provider} and closes it. */
  public static void oneEpoch(BatchProvider<?> provider) {
    try (provider) {
      for (Object batch : provider) {
        if (batch == null) {
          throw new AssertionError("null batch");
        }
      }
    }
  }

  /** Writes {@code bytes} to {@code file}, replacing it. */
  public static Path write(Path file, byte[] bytes) {
    try {
      return Files.write(file, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A fresh directory for one fuzz test class's files, deleted with its files when the JVM exits. */
  public static Path tempDir(String prefix) {
    try {
      Path dir = Files.createTempDirectory(prefix);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), prefix + "-cleanup"));
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) {
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary directory left behind is harmless.
    }
  }
}
