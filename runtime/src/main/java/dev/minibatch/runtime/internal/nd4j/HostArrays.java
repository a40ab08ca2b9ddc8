package dev.minibatch.runtime.internal.nd4j;

import dev.minibatch.runtime.spi.DTypes;
import dev.minibatch.DType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.javacpp.BytePointer;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * New dense arrays, and windows onto their host memory as direct {@link ByteBuffer}s, so that a
 * file reader decodes values straight into an INDArray (absolute bulk puts into a native-order
 * view) instead of filling a Java array that ND4J then copies.
 *
 * <p>Protocol: {@link #allocate} the array, take one or more {@link #window}s and write every
 * element through them, then call {@link #hostWritten} (needed on GPU backends, free on the CPU
 * backend). A window is valid as long as the array is reachable.
 *
 * <p>Arrays are always allocated outside ND4J workspaces, whatever workspace the calling thread
 * has open: they are long-lived buffers (a provider's batch buffers, a reader's decoded arrays),
 * and a workspace reuses or frees its memory when its scope closes or its next cycle starts,
 * under any array still pointing there. DL4J opens workspaces around {@code next()} (its
 * prefetching iterator, training loops), so an allocation inside one would be freed under us.
 */
public final class HostArrays {
  /** The most bytes one window may span (a {@link ByteBuffer} is indexed by int). */
  public static final int MAX_WINDOW_BYTES = Integer.MAX_VALUE - 7;

  private HostArrays() {}

  /**
   * A new dense C-order array of {@code dtype} and {@code shape} whose content is undefined until
   * written.
   *
   * @throws IllegalArgumentException for a negative extent or a dtype without an ND4J type
   */
  @SuppressWarnings("try") // the scope is entered and left, never referenced
  public static INDArray allocate(DType dtype, long... shape) {
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException("negative extent in shape " + java.util.Arrays.toString(shape));
      }
    }
    try (MemoryWorkspace outside = outsideWorkspaces()) {
      return Nd4j.createUninitialized(DTypes.toNd4j(dtype), shape, 'c');
    }
  }

  /**
   * Leaves the calling thread's open ND4J workspace, if any, until the returned scope is closed;
   * null (nothing to close, nothing allocated) when no workspace is open. Use it with
   * try-with-resources around code that may allocate arrays that must outlive the caller's
   * workspace.
   */
  public static @Nullable MemoryWorkspace outsideWorkspaces() {
    return Nd4j.getMemoryManager().getCurrentWorkspace() == null ? null
        : Nd4j.getWorkspaceManager().scopeOutOfWorkspaces();
  }

  /**
   * The host memory of elements {@code [fromElement, fromElement + elements)} of {@code array}
   * (row-major) as a direct buffer in native byte order, positioned at 0; use absolute puts or
   * {@link ByteBuffer#asFloatBuffer()} and friends.
   *
   * @throws IllegalArgumentException unless {@code array} is dense, C-order and owns its buffer
   *     from the start, or if the range lies outside the array or spans more than {@link
   *     #MAX_WINDOW_BYTES}
   */
  public static ByteBuffer window(INDArray array, long fromElement, int elements) {
    if (array.ordering() != 'c' || array.isView() || array.data().offset() != 0
        || array.data().length() != array.length()) {
      throw new IllegalArgumentException("HostArrays.window needs a dense C-order array that owns its buffer");
    }
    if (fromElement < 0 || elements < 0 || fromElement + elements > array.length()) {
      throw new IllegalArgumentException("elements [" + fromElement + ", " + (fromElement + elements)
          + ") outside an array of " + array.length());
    }
    long size = array.data().getElementSize();
    long bytes = elements * size;
    if (bytes > MAX_WINDOW_BYTES) {
      throw new IllegalArgumentException(elements + " elements of " + size + " bytes exceed one window of "
          + MAX_WINDOW_BYTES + " bytes; take several windows");
    }
    Nd4j.getAffinityManager().ensureLocation(array, AffinityManager.Location.HOST);
    long from = fromElement * size;
    return new BytePointer(array.data().addressPointer()).position(from).limit(from + bytes)
        .asByteBuffer().order(ByteOrder.nativeOrder());
  }

  /** The most elements of {@code array} one {@link #window} can span. */
  public static int maxWindowElements(INDArray array) {
    return MAX_WINDOW_BYTES / array.data().getElementSize();
  }

  /** Marks the host copy of {@code array} as the current one after writes through windows. */
  public static void hostWritten(INDArray array) {
    Nd4j.getAffinityManager().tagLocation(array, AffinityManager.Location.HOST);
  }
}
