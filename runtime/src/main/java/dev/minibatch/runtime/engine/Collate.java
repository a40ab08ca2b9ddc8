package dev.minibatch.runtime.engine;

import dev.minibatch.shape.Shape;
import dev.minibatch.shape.ShapeCheck;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The cold paths of collate code (generated, or the feeding provider's), kept out of it so the
 * collate methods stay small enough to inline: shape-mismatch errors and INDArray members. Called
 * by generated code: its shape may change in any release.
 */
public final class Collate {
  private Collate() {}

  /**
   * The error for a sample whose member does not match its shape. {@code actual} is the member's
   * value (a primitive array of any rank, possibly ragged, or an INDArray); its dims are measured
   * here, on the error path only.
   */
  public static IllegalArgumentException mismatch(String name, long sampleIndex, Shape expected, Object actual) {
    return new IllegalArgumentException(ShapeCheck.sampleMismatch(name, sampleIndex, expected, dimsOf(actual, expected)));
  }

  /** The error for a null member. */
  public static NullPointerException nullMember(String name, long sampleIndex) {
    return new NullPointerException("field '" + name + "' of sample " + sampleIndex + " is null");
  }

  /** The error for a null sample. */
  public static NullPointerException nullSample(long sampleIndex) {
    return new NullPointerException("sample " + sampleIndex + " is null");
  }

  /**
   * The dims of {@code value}: an INDArray's shape, or a primitive array's lengths along the path
   * that first disagrees with {@code expected} (so a ragged array shows its bad row).
   */
  static long[] dimsOf(Object value, Shape expected) {
    if (value instanceof INDArray a) {
      return a.shape();
    }
    List<Long> dims = new ArrayList<>();
    Object cur = value;
    int axis = 0;
    while (cur != null && cur.getClass().isArray()) {
      int len = Array.getLength(cur);
      dims.add((long) len);
      if (!cur.getClass().getComponentType().isArray() || len == 0) {
        break;
      }
      Object next = Array.get(cur, 0);
      long want = axis + 1 < expected.rank() ? expected.dim(axis + 1) : -1;
      for (int i = 0; i < len; i++) {
        Object c = Array.get(cur, i);
        if (c == null || Array.getLength(c) != want) {
          next = c;
          break;
        }
      }
      cur = next;
      axis++;
    }
    return dims.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * Copies an INDArray member into row {@code row} of {@code batch}: its shape must equal {@code
   * expected}, or it must be rank 1 (or a scalar) with the same number of elements. Converts the
   * element type if needed.
   */
  public static void indarray(String name, long sampleIndex, Shape expected, INDArray value, INDArray batch, int row) {
    long[] s = value.shape();
    boolean same = expected.matches(s);
    boolean flat = (s.length <= 1) && value.length() == expected.elementCount();
    if (!same && !flat) {
      throw mismatch(name, sampleIndex, expected, value);
    }
    INDArray dst = batch.get(NDArrayIndex.point(row));
    if (expected.rank() == 0) {
      dst.assign(value.getDouble(0));
    } else {
      dst.assign(same ? value : value.reshape('c', expected.toLongArray()));
    }
  }
}
