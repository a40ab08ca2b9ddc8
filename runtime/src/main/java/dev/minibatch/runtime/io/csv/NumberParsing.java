package dev.minibatch.runtime.io.csv;

import ch.randelshofer.fastdoubleparser.JavaDoubleParser;
import ch.randelshofer.fastdoubleparser.JavaFloatParser;

/**
 * Numbers from bytes, without Strings. Integers are parsed exactly with range checks; floats by
 * FastDoubleParser (correctly rounded to float32 directly, not via double). Every method throws
 * {@link NumberFormatException} (with no message: the caller names file, line and column).
 */
final class NumberParsing {
  private NumberParsing() {}

  static float parseFloat(byte[] b, int from, int to) {
    return JavaFloatParser.parseFloat(b, from, to - from);
  }

  static double parseDouble(byte[] b, int from, int to) {
    return JavaDoubleParser.parseDouble(b, from, to - from);
  }

  static int parseInt(byte[] b, int from, int to) {
    long v = parseLong(b, from, to);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new NumberFormatException();
    }
    return (int) v;
  }

  /** An optional sign and 1..19 decimal digits, exactly, within the range of long. */
  static long parseLong(byte[] b, int from, int to) {
    int i = from;
    boolean negative = false;
    if (i < to && (b[i] == '-' || b[i] == '+')) {
      negative = b[i] == '-';
      i++;
    }
    if (i == to) {
      throw new NumberFormatException();
    }
    // Accumulate negatively so that Long.MIN_VALUE fits.
    long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
    long multMin = limit / 10;
    long result = 0;
    for (; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9 || result < multMin) {
        throw new NumberFormatException();
      }
      result *= 10;
      if (result < limit + d) {
        throw new NumberFormatException();
      }
      result -= d;
    }
    return negative ? result : -result;
  }
}
