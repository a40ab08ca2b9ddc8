package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.io.FileFormatException;
import io.jhdf.exceptions.HdfFilterException;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Calls into jhdf on behalf of one file. jhdf trusts the file's structure: a corrupt one surfaces
 * as whatever the failing step throws ({@code HdfException}, {@code ArithmeticException}, {@code
 * BufferUnderflowException}, {@code IllegalArgumentException}, {@code
 * ArrayIndexOutOfBoundsException}, {@code NegativeArraySizeException}, a {@code
 * NullPointerException}, …) or, for a structure that refers back to itself (an object header
 * continued into itself, a B-tree node that is its own child), as a {@link StackOverflowError} from
 * its recursion. Each becomes a {@link FileFormatException} naming the file and what was being read,
 * with jhdf's throwable as the cause.
 */
final class Jhdf {
  private Jhdf() {}

  /**
   * The result of {@code call}, which reads {@code what} (e.g. "dataset 'x'") of {@code file}.
   *
   * @throws FileFormatException for every failure of the call; one the call throws itself passes
   *     through unchanged
   */
  static <T> T call(Path file, String what, Supplier<T> call) {
    try {
      return call.get();
    } catch (FileFormatException e) {
      throw e;
    } catch (HdfFilterException e) {
      throw new FileFormatException(file.toString(), what + " uses a compression filter that cannot be decoded: "
          + e.getMessage() + ". Rewrite it with gzip (deflate) or without compression", e);
    } catch (RuntimeException e) {
      throw new FileFormatException(file.toString(), "cannot read " + what + ": " + describe(e), e);
    } catch (InternalError e) {
      // Reading a mapped file that another process truncated faults (SIGBUS); the JVM reports that
      // as this error. Anything else is the JVM's own and not the file's doing.
      if (e.getMessage() == null || !e.getMessage().contains("unsafe memory access")) {
        throw e;
      }
      throw new FileFormatException(file.toString(), "cannot read " + what + ": the file shrank while it was read "
          + "(another program truncated or rewrote it)", e);
    } catch (StackOverflowError e) {
      // jhdf follows the file's references recursively; only a reference cycle recurses this deep.
      throw new FileFormatException(file.toString(), "cannot read " + what + ": the file's structure refers back to "
          + "itself (a cycle of object header continuations, B-tree nodes or heap blocks)", e);
    }
  }

  /**
   * A throwable and its causes' messages, which jhdf uses to say where it was, and what a slice or
   * read past the end of the buffer means for the user.
   */
  private static String describe(Throwable e) {
    StringBuilder sb = new StringBuilder();
    boolean pastEnd = false;
    int depth = 0;
    for (Throwable t = e; t != null && depth < 4; t = t.getCause(), depth++) {
      sb.append(depth == 0 ? "" : "; caused by ").append(t.getClass().getSimpleName());
      if (t.getMessage() != null) {
        sb.append(": ").append(t.getMessage());
      }
      pastEnd |= t instanceof java.nio.BufferUnderflowException
          || (t instanceof IllegalArgumentException && String.valueOf(t.getMessage()).startsWith("newLimit > capacity"));
    }
    return sb + (pastEnd ? " (the file refers past its end: it is truncated or an offset is corrupt)" : "");
  }
}
