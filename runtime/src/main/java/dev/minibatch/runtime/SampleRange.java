package dev.minibatch.runtime;

/**
 * A half-open range of batch rows {@code [from, to)}.
 *
 * @param from first row, inclusive
 * @param to last row, exclusive
 */
record SampleRange(int from, int to) {
  /** Checks {@code 0 <= from <= to}. */
  public SampleRange {
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("invalid row range [" + from + ", " + to + ")");
    }
  }

  /** The number of rows. */
  public int size() {
    return to - from;
  }

  @Override
  public String toString() {
    return "[" + from + ", " + to + ")";
  }
}
