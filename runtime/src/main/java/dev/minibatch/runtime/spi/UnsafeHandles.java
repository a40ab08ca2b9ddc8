package dev.minibatch.runtime.spi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import org.jspecify.annotations.Nullable;

/**
 * Method handles on {@code sun.misc.Unsafe}'s instance, for the three places where Java 17 has no
 * public way to do what the hot path needs: the engine's raw copies and cache-line touches, and
 * unmapping a shard file at once.
 * Bound once into a {@code static final} field, a handle compiles to a direct call, and needs no
 * compile-time reference to the unsupported class (javac warns on each one). From JDK 24 on the JDK
 * warns on the first use of {@code Unsafe}'s memory methods (JEP 498): there, as where the class
 * cannot be reached, each method gives {@code null} and callers keep their portable path.
 */
public final class UnsafeHandles {
  private UnsafeHandles() {}

  /** {@code Unsafe.copyMemory(long src, long dst, long bytes)}, or null (see the class). */
  public static @Nullable MethodHandle copyMemory() {
    return find("copyMemory", void.class, long.class, long.class, long.class);
  }

  /** {@code Unsafe.getByte(long address)}, or null (see the class). */
  public static @Nullable MethodHandle getByte() {
    return find("getByte", byte.class, long.class);
  }

  /** {@code Unsafe.invokeCleaner(ByteBuffer directBuffer)}: frees a direct or mapped buffer at once; or null. */
  public static @Nullable MethodHandle invokeCleaner() {
    return find("invokeCleaner", void.class, java.nio.ByteBuffer.class);
  }

  /**
   * {@code Unsafe}'s instance method {@code name} with this signature, bound to the instance; {@code
   * null} from JDK 24 on or where it cannot be found.
   */
  static @Nullable MethodHandle find(String name, Class<?> result, Class<?>... parameters) {
    if (Runtime.version().feature() >= 24) {
      return null;
    }
    try {
      Class<?> type = Class.forName("sun.misc.Unsafe");
      Field f = type.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return MethodHandles.lookup().findVirtual(type, name, MethodType.methodType(result, parameters))
          .bindTo(f.get(null));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
