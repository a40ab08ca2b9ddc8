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

  private static final float[] POW10 = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

  /**
   * Short plain decimals ({@code -12.345}: at most 7 digits, no exponent) take Clinger's fast path:
   * the digits as an integer below 2^24 and the power of ten up to 10^10 are both exact floats, so
   * one IEEE division is correctly rounded. Everything else goes to FastDoubleParser.
   */
  static float parseFloat(byte[] b, int from, int to) {
    int i = from;
    boolean negative = false;
    if (i < to && (b[i] == '-' || b[i] == '+')) {
      negative = b[i] == '-';
      i++;
    }
    int mantissa = 0;
    int digits = 0;
    int fraction = -1;
    for (; i < to; i++) {
      int d = b[i] - '0';
      if (d >= 0 && d <= 9) {
        mantissa = mantissa * 10 + d;
        digits++;
        if (fraction >= 0) {
          fraction++;
        }
      } else if (b[i] == '.' && fraction < 0) {
        fraction = 0;
      } else {
        digits = 99;
        break;
      }
    }
    if (digits == 0 || digits > 7) {
      return JavaFloatParser.parseFloat(b, from, to - from);
    }
    float v = fraction > 0 ? mantissa / POW10[fraction] : mantissa;
    return negative ? -v : v;
  }

  /** 10^{@code n} as an exact float, 0 <= n <= 10. */
  static float pow10(int n) {
    return POW10[n];
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
