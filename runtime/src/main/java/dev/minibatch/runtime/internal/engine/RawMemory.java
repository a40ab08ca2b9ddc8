package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.UnsafeHandles;
import java.lang.invoke.MethodHandle;
import org.jspecify.annotations.Nullable;

/**
 * Copies between raw native addresses with {@code sun.misc.Unsafe}, where the running JDK offers it
 * quietly: the shuffled gather's copy, where a direct {@link java.nio.ByteBuffer}'s bulk put (its
 * bounds and scope checks around the same copy) measured slower (docs/performance.md). Callers
 * check every bound themselves before they copy. From JDK 24 on the JDK prints a warning on the
 * first use of {@code Unsafe}'s memory methods (JEP 498), so there {@link #AVAILABLE} is false and
 * callers keep their buffer copies. The two methods are bound once ({@link UnsafeHandles}).
 */
final class RawMemory {
  private static final @Nullable MethodHandle COPY = UnsafeHandles.copyMemory();
  private static final @Nullable MethodHandle GET_BYTE = UnsafeHandles.getByte();
  /** Whether {@link #copy} and {@link #touch} may be called. */
  static final boolean AVAILABLE = COPY != null && GET_BYTE != null;

  private RawMemory() {}

  /** Copies {@code bytes} from address {@code src} to address {@code dst}; only if {@link #AVAILABLE}. */
  static void copy(long src, long dst, long bytes) {
    try {
      COPY.invokeExact(src, dst, bytes);
    } catch (Throwable t) {
      throw rethrown(t);
    }
  }

  /** The byte at {@code address}, read so that its cache line is on its way; only if {@link #AVAILABLE}. */
  static byte touch(long address) {
    try {
      return (byte) GET_BYTE.invokeExact(address);
    } catch (Throwable t) {
      throw rethrown(t);
    }
  }

  private static RuntimeException rethrown(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
