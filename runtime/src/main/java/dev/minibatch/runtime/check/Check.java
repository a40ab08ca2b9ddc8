package dev.minibatch.runtime.check;

/**
 * Argument checks with one phrasing: {@code "<what> must be >= <min>, got <value>"} and
 * {@code "<what> must be in [<from>, <to>), got <value>"} (for a {@code double}: {@code "<what>
 * must be a finite number > 0, got NaN"}, {@code "<what> must be in [0, 1], got 1.5"}), thrown as an
 * {@link IllegalArgumentException}. Each returns the value it checked, so a setter reads
 * {@code this.readers = Check.atLeast("readers", n, 0);}. An optional {@code meaning} explains a
 * special value and goes in parentheses after the bound: {@code "bufferSize must be >= 0
 * (0 = unbounded), got -1"}.
 */
public final class Check {
  private Check() {}

  /** {@code value}, if it is at least {@code min}. */
  public static int atLeast(String what, int value, int min) {
    return atLeast(what, value, min, "");
  }

  /** {@code value}, if it is at least {@code min}; {@code meaning} explains the bound's special value. */
  public static int atLeast(String what, int value, int min, String meaning) {
    return (int) atLeast(what, (long) value, min, meaning);
  }

  /** {@code value}, if it is at least {@code min}. */
  public static long atLeast(String what, long value, long min) {
    return atLeast(what, value, min, "");
  }

  /** {@code value}, if it is at least {@code min}; {@code meaning} explains the bound's special value. */
  public static long atLeast(String what, long value, long min, String meaning) {
    if (value < min) {
      throw new IllegalArgumentException(what + " must be >= " + min + note(meaning) + ", got " + value);
    }
    return value;
  }

  /** {@code value}, if {@code fromInclusive <= value < toExclusive}. */
  public static int inRange(String what, int value, int fromInclusive, int toExclusive) {
    return (int) inRange(what, (long) value, fromInclusive, toExclusive);
  }

  /** {@code value}, if {@code fromInclusive <= value < toExclusive}. */
  public static long inRange(String what, long value, long fromInclusive, long toExclusive) {
    if (value < fromInclusive || value >= toExclusive) {
      throw new IllegalArgumentException(
          what + " must be in [" + fromInclusive + ", " + toExclusive + "), got " + value);
    }
    return value;
  }

  /** {@code value}, if it is a finite number above 0 (a weight). */
  public static double positive(String what, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(what + " must be a finite number > 0, got " + value);
    }
    return value;
  }

  /** {@code value}, if it is a finite number of at least 0 (a probability that need not sum to 1). */
  public static double nonNegative(String what, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(what + " must be a finite number >= 0, got " + value);
    }
    return value;
  }

  /** {@code value}, if {@code 0 <= value <= 1}. */
  public static double fraction(String what, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(what + " must be in [0, 1], got " + value);
    }
    return value;
  }

  private static String note(String meaning) {
    return meaning.isEmpty() ? "" : " (" + meaning + ")";
  }
}
