package dev.minibatch.runtime.internal.nd4j;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Converts Java primitive arrays of any rank ({@code float[]}, {@code int[][]}, {@code
 * double[][][]}, …) into C-order INDArrays of the matching type. Used when a provider is built, not
 * on a hot path.
 */
public final class JavaArrays {
  private JavaArrays() {}

  /**
   * The INDArray holding {@code array}'s values, shaped by its nesting.
   *
   * @param what how to name the array in errors, e.g. {@code "data array 'x'"}
   * @throws IllegalArgumentException if {@code array} is not a primitive array, is ragged (the
   *     message names the first ragged position), or is a {@code char[]} / {@code boolean[]} array
   */
  public static INDArray toINDArray(Object array, String what) {
    if (array instanceof INDArray) {
      return (INDArray) array;
    }
    Class<?> c = array.getClass();
    if (!c.isArray()) {
      throw new IllegalArgumentException(what + ": expected an INDArray or a primitive array, got " + c.getName());
    }
    List<Long> dims = new ArrayList<>();
    Object probe = array;
    Class<?> leaf = c;
    while (leaf.isArray()) {
      dims.add((long) Array.getLength(probe));
      leaf = leaf.getComponentType();
      if (leaf.isArray()) {
        if (Array.getLength(probe) == 0) {
          throw new IllegalArgumentException(what + ": empty array at an outer axis, the shape is unknown");
        }
        probe = Array.get(probe, 0);
      }
    }
    if (!leaf.isPrimitive()) {
      throw new IllegalArgumentException(what + ": expected an array of a primitive type, got " + c.getSimpleName());
    }
    long[] shape = dims.stream().mapToLong(Long::longValue).toArray();
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    int len = Math.toIntExact(n);
    Object flat = Array.newInstance(leaf, len);
    int[] cursor = {0};
    flatten(array, 0, shape, flat, cursor, what, new StringBuilder());
    INDArray out;
    if (leaf == float.class) {
      out = Nd4j.create((float[]) flat, shape, 'c');
    } else if (leaf == double.class) {
      out = Nd4j.create((double[]) flat, shape, DataType.DOUBLE);
    } else if (leaf == int.class) {
      out = Nd4j.createFromArray((int[]) flat).reshape('c', shape);
    } else if (leaf == long.class) {
      out = Nd4j.createFromArray((long[]) flat).reshape('c', shape);
    } else if (leaf == short.class) {
      out = Nd4j.createFromArray((short[]) flat).reshape('c', shape);
    } else if (leaf == byte.class) {
      out = Nd4j.createFromArray((byte[]) flat).reshape('c', shape);
    } else if (leaf == boolean.class) {
      out = Nd4j.createFromArray((boolean[]) flat).reshape('c', shape);
    } else {
      throw new IllegalArgumentException(what + ": " + leaf + " arrays are not supported; use int[] for char data");
    }
    return out;
  }

  private static void flatten(Object a, int axis, long[] shape, Object flat, int[] cursor, String what, StringBuilder at) {
    int len = Array.getLength(a);
    if (len != shape[axis]) {
      throw new IllegalArgumentException(what + ": ragged array: element " + at + " has length " + len
          + ", expected " + shape[axis] + " like the first one");
    }
    if (axis == shape.length - 1) {
      System.arraycopy(a, 0, flat, cursor[0], len);
      cursor[0] += len;
      return;
    }
    for (int i = 0; i < len; i++) {
      int mark = at.length();
      at.append('[').append(i).append(']');
      flatten(Array.get(a, i), axis + 1, shape, flat, cursor, what, at);
      at.setLength(mark);
    }
  }
}
