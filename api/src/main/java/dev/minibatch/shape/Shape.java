package dev.minibatch.shape;

import java.util.Arrays;

/**
 * An immutable array shape: the extent of each axis, row-major. A sample shape has no batch axis;
 * {@link #withBatch(long)} prepends one. The empty shape is a scalar.
 */
public final class Shape {
  /**
   * The extent of a variable axis (one whose length differs from sample to sample), as in {@code
   * @Provides(shape = {VARIABLE, 64})}; -1, as SameDiff and ONNX write an unknown dim.
   */
  public static final long VARIABLE = -1;

  private static final Shape SCALAR = new Shape(new long[0]);

  private final long[] dims;

  private Shape(long[] dims) {
    this.dims = dims;
  }

  /**
   * A shape with the given dims.
   *
   * @throws IllegalArgumentException if a dim is neither positive nor {@link #VARIABLE}, or more
   *     than one is {@link #VARIABLE} (the message is {@link ShapeCheck#checkDims}'s)
   */
  public static Shape of(long... dims) {
    if (dims.length == 0) {
      return SCALAR;
    }
    String problem = ShapeCheck.checkDims(dims);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    return new Shape(dims.clone());
  }

  /** {@link #of(long...)} for int dims, as annotations declare them. */
  public static Shape of(int... dims) {
    return of(Arrays.stream(dims).asLongStream().toArray());
  }

  /** The shape of a scalar (rank 0, one element). */
  public static Shape scalar() {
    return SCALAR;
  }

  /** The number of axes. */
  public int rank() {
    return dims.length;
  }

  /** The extent of axis {@code axis}. */
  public long dim(int axis) {
    return dims[axis];
  }

  /** The variable axis, or -1 if every axis is fixed. */
  public int variableAxis() {
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] == VARIABLE) {
        return i;
      }
    }
    return -1;
  }

  /** True if no axis is {@link #VARIABLE}. */
  public boolean isFixed() {
    return variableAxis() < 0;
  }

  /** This shape with axis {@code axis} set to {@code dim} (a bound or an actual length for a variable axis). */
  public Shape withDim(int axis, long dim) {
    long[] out = dims.clone();
    out[axis] = dim;
    return of(out);
  }

  /**
   * The number of elements: the product of the dims, 1 for a scalar.
   *
   * @throws IllegalStateException for a shape with a variable axis
   */
  public long elementCount() {
    if (!isFixed()) {
      throw new IllegalStateException("shape " + this + " has a variable axis, so no fixed element count");
    }
    long n = 1;
    for (long d : dims) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  /** A copy of the dims. */
  public long[] toLongArray() {
    return dims.clone();
  }

  /** A copy of the dims as ints. */
  public int[] toIntArray() {
    int[] out = new int[dims.length];
    for (int i = 0; i < dims.length; i++) {
      out[i] = Math.toIntExact(dims[i]);
    }
    return out;
  }

  /** This shape with a leading batch axis of {@code batch} (which may be 0 for an empty batch). */
  public Shape withBatch(long batch) {
    if (batch < 0) {
      throw new IllegalArgumentException("batch size must be >= 0, got " + batch);
    }
    long[] out = new long[dims.length + 1];
    out[0] = batch;
    System.arraycopy(dims, 0, out, 1, dims.length);
    return new Shape(out);
  }

  /** This shape without its first axis (a batch shape's sample shape). */
  public Shape dropFirst() {
    if (dims.length == 0) {
      throw new IllegalStateException("a scalar shape has no first axis");
    }
    return dims.length == 1 ? SCALAR : new Shape(Arrays.copyOfRange(dims, 1, dims.length));
  }

  /**
   * True if {@code actual} (the dims of some array) equals this shape, a {@link #VARIABLE} axis
   * matching any extent.
   */
  public boolean matches(long[] actual) {
    if (actual.length != dims.length) {
      return false;
    }
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] != actual[i] && dims[i] != VARIABLE) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Shape && Arrays.equals(dims, ((Shape) o).dims);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(dims);
  }

  /** The dims in parentheses, as numpy prints them: {@code (28, 28)}, {@code ()} for a scalar. */
  @Override
  public String toString() {
    return ShapeCheck.format(dims);
  }
}
