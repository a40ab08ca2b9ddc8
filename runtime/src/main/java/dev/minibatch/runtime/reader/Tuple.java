package dev.minibatch.runtime.reader;

import java.util.Arrays;
import java.util.List;

/**
 * An immutable row of values: what {@link Readers#compose} produces and what a feeding map picks
 * columns from (Paddle's tuples).
 */
public final class Tuple {
  private final Object[] values;

  private Tuple(Object[] values) {
    this.values = values;
  }

  /** A tuple of the given values. */
  public static Tuple of(Object... values) {
    return new Tuple(values.clone());
  }

  /** A tuple of the given values. */
  public static Tuple of(List<?> values) {
    return new Tuple(values.toArray());
  }

  static Tuple wrap(Object[] values) {
    return new Tuple(values);
  }

  /** The number of values. */
  public int size() {
    return values.length;
  }

  /**
   * The value at {@code index}, cast to the type the caller expects.
   *
   * @throws IndexOutOfBoundsException if there is no such column
   * @throws ClassCastException (at the call site) if the value is of another type
   */
  @SuppressWarnings("unchecked")
  public <V> V get(int index) {
    if (index < 0 || index >= values.length) {
      throw new IndexOutOfBoundsException("column " + index + " of a tuple of " + values.length);
    }
    return (V) values[index];
  }

  /** The values as an unmodifiable list. */
  public List<Object> asList() {
    return List.of(values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tuple && Arrays.equals(values, ((Tuple) o).values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  /** {@code (a, b, c)}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(values[i]);
    }
    return sb.append(')').toString();
  }
}
