package dev.minibatch.benchmarks.engine;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import org.bytedeco.javacpp.Pointer;

/**
 * The row-copy primitives the JVM offers for off-heap memory, each as a plain shuffled gather with
 * no bookkeeping, so {@link EngineBenchmark} can measure the machine's limit with the fastest of
 * them in the same run as the providers. Every gather copies the feature row and the label row of
 * each sample in one pass (the provider's work), in the order of the same permutation.
 */
final class RowCopies {
  /**
   * {@code Unsafe.copyMemory(long, long, long)} bound to the instance: the copy stub the JIT
   * emits for it, without the bounds and scope checks of the buffer and segment APIs. Looked up
   * once by name, so this class compiles without a reference to the unsupported API.
   */
  private static final MethodHandle UNSAFE_COPY =
      unsafeMethod("copyMemory", MethodType.methodType(void.class, long.class, long.class, long.class));
  /** {@code Unsafe.getByte(long)}, bound the same way: a read that starts a row's cache miss early. */
  private static final MethodHandle UNSAFE_GET_BYTE =
      unsafeMethod("getByte", MethodType.methodType(byte.class, long.class));
  /** Where the touching reads go, so the JIT keeps them; rarely written. */
  @SuppressWarnings("unused")
  private static int touched;

  private RowCopies() {}

  /** {@code Unsafe}'s method {@code name} of {@code type}, bound to the instance. */
  private static MethodHandle unsafeMethod(String name, MethodType type) {
    try {
      Class<?> unsafe = Class.forName("sun.misc.Unsafe");
      Field f = unsafe.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return MethodHandles.lookup().findVirtual(unsafe, name, type).bindTo(f.get(null));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("sun.misc.Unsafe is not available", e);
    }
  }

  /**
   * {@link #unsafe} with software prefetch: while sample {@code r}'s rows are copied, the first
   * byte of sample {@code r + 1}'s feature and label rows is read, so their cache misses overlap
   * the copy (what the provider's gather does).
   */
  static void unsafeTouching(int[] order, int from, int rows, long srcX, long srcY, long dstX, long dstY, int rowX,
      int rowY) throws Throwable {
    int sum = 0;
    for (int r = 0; r < rows; r++) {
      long s = order[from + r];
      if (r + 1 < rows) {
        long t = order[from + r + 1];
        sum += (byte) UNSAFE_GET_BYTE.invokeExact(srcX + t * rowX);
        sum += (byte) UNSAFE_GET_BYTE.invokeExact(srcY + t * rowY);
      }
      UNSAFE_COPY.invokeExact(srcX + s * rowX, dstX + (long) r * rowX, (long) rowX);
      UNSAFE_COPY.invokeExact(srcY + s * rowY, dstY + (long) r * rowY, (long) rowY);
    }
    if (sum == 0x5EED_0001) {
      touched = sum;
    }
  }

  /** Direct-buffer bulk puts, {@code ByteBuffer.put(int, ByteBuffer, int, int)}: checks bounds per call. */
  static void byteBuffers(int[] order, int from, int rows, ByteBuffer srcX, ByteBuffer srcY, ByteBuffer dstX,
      ByteBuffer dstY, int rowX, int rowY) {
    for (int r = 0; r < rows; r++) {
      int s = order[from + r];
      dstX.put(r * rowX, srcX, s * rowX, rowX);
      dstY.put(r * rowY, srcY, s * rowY, rowY);
    }
  }

  /** {@code Unsafe.copyMemory} between raw addresses: no checks at all. */
  static void unsafe(int[] order, int from, int rows, long srcX, long srcY, long dstX, long dstY, int rowX,
      int rowY) throws Throwable {
    for (int r = 0; r < rows; r++) {
      long s = order[from + r];
      UNSAFE_COPY.invokeExact(srcX + s * rowX, dstX + (long) r * rowX, (long) rowX);
      UNSAFE_COPY.invokeExact(srcY + s * rowY, dstY + (long) r * rowY, (long) rowY);
    }
  }

  /**
   * JavaCPP's {@code Pointer.memcpy}: one JNI call per row into the C library's memcpy, the copy
   * the C limit uses. The four pointers are moved, not created, so nothing is allocated.
   */
  static void memcpy(int[] order, int from, int rows, Pointer srcX, Pointer srcY, Pointer dstX, Pointer dstY,
      int rowX, int rowY) {
    for (int r = 0; r < rows; r++) {
      long s = order[from + r];
      Pointer.memcpy(dstX.position((long) r * rowX), srcX.position(s * rowX), rowX);
      Pointer.memcpy(dstY.position((long) r * rowY), srcY.position(s * rowY), rowY);
    }
  }

  /** {@code System.arraycopy} between heap {@code float[]}s: the heap's copy, for comparison. */
  static void heap(int[] order, int from, int rows, float[] srcX, float[] srcY, float[] dstX, float[] dstY,
      int features, int classes) {
    for (int r = 0; r < rows; r++) {
      int s = order[from + r];
      System.arraycopy(srcX, s * features, dstX, r * features, features);
      System.arraycopy(srcY, s * classes, dstY, r * classes, classes);
    }
  }
}
