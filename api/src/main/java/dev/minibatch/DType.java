package dev.minibatch;

/**
 * The element type of a provided array. The names follow numpy/MXNet; {@link #byteSize()} is the
 * size of one element.
 */
public enum DType {
  /** Take the type from the annotated member: the Java primitive's natural dtype. */
  INFER(0),
  BOOL(1),
  INT8(1),
  UINT8(1),
  INT16(2),
  /** Java {@code char}: an unsigned 16-bit integer. */
  UINT16(2),
  INT32(4),
  INT64(8),
  FLOAT16(2),
  FLOAT32(4),
  FLOAT64(8);

  private final int byteSize;

  DType(int byteSize) {
    this.byteSize = byteSize;
  }

  /** Bytes per element; 0 for {@link #INFER}, which is not a concrete type. */
  public int byteSize() {
    return byteSize;
  }

  /** True for the floating-point types. */
  public boolean isFloatingPoint() {
    return this == FLOAT16 || this == FLOAT32 || this == FLOAT64;
  }

  /**
   * The natural dtype of a Java primitive type name ({@code "float"} → {@link #FLOAT32}, {@code
   * "char"} → {@link #UINT16}, …).
   *
   * @throws IllegalArgumentException if the name is not one of the eight primitives
   */
  public static DType ofPrimitive(String javaPrimitive) {
    switch (javaPrimitive) {
      case "boolean":
        return BOOL;
      case "byte":
        return INT8;
      case "short":
        return INT16;
      case "char":
        return UINT16;
      case "int":
        return INT32;
      case "long":
        return INT64;
      case "float":
        return FLOAT32;
      case "double":
        return FLOAT64;
      default:
        throw new IllegalArgumentException("not a Java primitive type: " + javaPrimitive);
    }
  }
}
