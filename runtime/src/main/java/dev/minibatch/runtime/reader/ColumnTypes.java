package dev.minibatch.runtime.reader;

import dev.minibatch.DType;
import dev.minibatch.runtime.spi.DTypes;
import dev.minibatch.shape.Shape;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Infers a fed column's per-sample shape and element type from one value. */
final class ColumnTypes {
  private ColumnTypes() {}

  static Shape shapeOf(String name, Object value) {
    if (value instanceof Number || value instanceof Boolean) {
      return Shape.scalar();
    }
    if (value instanceof INDArray) {
      return Shape.of(((INDArray) value).shape());
    }
    if (!value.getClass().isArray()) {
      throw unsupported(name, value);
    }
    List<Long> dims = new ArrayList<>();
    Object cur = value;
    while (cur != null && cur.getClass().isArray()) {
      int len = Array.getLength(cur);
      dims.add((long) len);
      if (len == 0) {
        break;
      }
      cur = cur.getClass().getComponentType().isArray() ? Array.get(cur, 0) : null;
    }
    return Shape.of(dims.stream().mapToLong(Long::longValue).toArray());
  }

  static DType dtypeOf(String name, Object value) {
    if (value instanceof INDArray) {
      return DTypes.fromNd4j(((INDArray) value).dataType());
    }
    Class<?> c = value.getClass();
    while (c.isArray()) {
      c = c.getComponentType();
    }
    if (c == float.class || c == Float.class) {
      return DType.FLOAT32;
    }
    if (c == double.class || c == Double.class) {
      return DType.FLOAT64;
    }
    if (c == int.class || c == Integer.class) {
      return DType.INT32;
    }
    if (c == long.class || c == Long.class) {
      return DType.INT64;
    }
    if (c == short.class || c == Short.class) {
      return DType.INT16;
    }
    if (c == byte.class || c == Byte.class) {
      return DType.INT8;
    }
    if (c == boolean.class || c == Boolean.class) {
      return DType.BOOL;
    }
    throw unsupported(name, value);
  }

  private static IllegalArgumentException unsupported(String name, Object value) {
    return new IllegalArgumentException("'" + name + "': cannot feed a " + value.getClass().getName()
        + "; a column must hold a number, a primitive array or an INDArray");
  }
}
