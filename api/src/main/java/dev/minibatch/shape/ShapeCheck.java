package dev.minibatch.shape;

import org.jspecify.annotations.Nullable;

/**
 * The one shape checker: the processor calls it on annotation values, the runtime on arrays, so a
 * problem reads the same at compile time and at run time. Methods return the problem as text, or
 * {@code null} when there is none.
 */
public final class ShapeCheck {
  private ShapeCheck() {}

  /**
   * Checks that every dim is positive, except at most one {@link Shape#VARIABLE} (-1); names the
   * first bad axis.
   */
  public static @Nullable String checkDims(long[] dims) {
    int variable = -1;
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] == Shape.VARIABLE) {
        if (variable >= 0) {
          return "shape " + format(dims) + ": dims " + variable + " and " + i + " are both VARIABLE; a sample has one "
              + "mask and one length, so at most one axis can vary";
        }
        variable = i;
      } else if (dims[i] <= 0) {
        return "shape " + format(dims) + ": dim " + i + " is " + dims[i] + ", every dim must be > 0 (or VARIABLE, "
            + "-1, for the one axis whose length varies)";
      }
    }
    return null;
  }

  /** {@link #checkDims(long[])} for int dims. */
  public static @Nullable String checkDims(int[] dims) {
    long[] l = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      l[i] = dims[i];
    }
    return checkDims(l);
  }

  /**
   * Checks a Java array member's rank against a declared shape: equal ranks, or rank 1 (flat
   * row-major storage). A scalar shape needs a non-array member, which the caller checks.
   */
  public static @Nullable String checkArrayRank(int arrayRank, int shapeRank) {
    if (arrayRank == shapeRank || arrayRank == 1) {
      return null;
    }
    return "a rank-" + arrayRank + " array cannot hold shape of rank " + shapeRank
        + "; use a rank-" + shapeRank + " array, or a flat rank-1 array holding the elements row-major";
  }

  /**
   * The message for a sample whose array does not match its declared shape.
   *
   * @param field the provided name
   * @param sampleIndex the sample's index in its source
   * @param expected the declared per-sample shape
   * @param actual what the sample holds (dims, or for a flat array its length)
   */
  public static String sampleMismatch(String field, long sampleIndex, Shape expected, long[] actual) {
    return "field '" + field + "' of sample " + sampleIndex + ": expected shape " + expected
        + (expected.isFixed() ? " (" + expected.elementCount() + " elements)" : "") + ", got " + format(actual);
  }

  /** Formats dims as {@code (a, b, c)}; a rank-1 shape as {@code (a,)} like numpy. */
  public static String format(long[] dims) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < dims.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(dims[i]);
    }
    if (dims.length == 1) {
      sb.append(',');
    }
    return sb.append(')').toString();
  }
  /**
   * Checks a layout string for a batch of samples of {@code sampleRank} axes: one letter per axis of
   * the batch shape, batch axis first, so {@code sampleRank + 1} letters starting with {@code N},
   * upper-case letters or {@code _} (an axis without a name), no letter twice.
   *
   * @return the problem, or null; a length problem starts with {@code "layout '...' names"}
   */
  public static @Nullable String checkLayout(String layout, int sampleRank) {
    if (layout.length() != sampleRank + 1) {
      return "layout '" + layout + "' names " + layout.length() + " axes but a batch of rank-" + sampleRank
          + " samples has " + (sampleRank + 1) + " (the batch axis N, then one per sample axis)";
    }
    if (layout.charAt(0) != 'N') {
      return "layout '" + layout + "' must start with N: the batch axis is always first";
    }
    for (int i = 0; i < layout.length(); i++) {
      char c = layout.charAt(i);
      if (c != '_' && (c < 'A' || c > 'Z')) {
        return "layout '" + layout + "' has '" + c + "' at index " + i + "; axes are named by upper-case letters or _";
      }
      if (c != '_' && layout.indexOf(c) != i) {
        return "layout '" + layout + "' names axis " + c + " twice";
      }
    }
    return null;
  }
}
