package dev.minibatch.shards;

import dev.minibatch.runtime.spi.UnsafeHandles;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Unmaps a mapped file at once, with {@code sun.misc.Unsafe.invokeCleaner}, where the running JDK
 * offers it quietly. Java 17 has no public unmap: a mapping ends when the garbage collector finds its
 * buffer unreachable, and the buffer of a file held through several collections lives in the old
 * generation, which may not be collected for hours; the mappings of the files a streaming provider
 * drops would pile up meanwhile (address space, the kernel's limit on mappings, a resident size that
 * grows every epoch). So a shard file is mapped only where it can be unmapped when the last batch
 * copying from it is done ({@link ShardFile.Decoded#release()}), never earlier (an access after the
 * unmap would crash the JVM). From JDK 24 on the JDK warns about {@code Unsafe} (JEP 498): there
 * {@link #AVAILABLE} is false and files are read into buffers instead.
 */
final class Unmapping {
  private static final @Nullable MethodHandle CLEANER = UnsafeHandles.invokeCleaner();
  /** Whether {@link #unmap} may be called. */
  static final boolean AVAILABLE = CLEANER != null;

  private Unmapping() {}

  /** Unmaps {@code mapped} (the buffer {@code map} returned, not a slice of it); only if {@link #AVAILABLE}. */
  static void unmap(MappedByteBuffer mapped) {
    try {
      java.util.Objects.requireNonNull(CLEANER).invokeExact((ByteBuffer) mapped);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
