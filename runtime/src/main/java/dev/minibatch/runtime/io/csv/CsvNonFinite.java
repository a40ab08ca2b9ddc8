package dev.minibatch.runtime.io.csv;

import dev.minibatch.DType;
import dev.minibatch.runtime.io.Format.Problems;
import dev.minibatch.runtime.io.csv.CsvTable.NumericArray;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Finds the values a CSV parser accepts but training cannot use: {@code NaN}, {@code Infinity} and
 * numbers beyond the element type's range (which parse as infinity). Each is reported at the file's
 * physical line and the field's column (0-based, label column counted), as the parser reports its
 * own errors.
 */
final class CsvNonFinite {
  private CsvNonFinite() {}

  /**
   * Reports every non-finite value of {@code table}, parsed from {@code bytes} with {@code format}
   * and {@code fields} fields per row, until {@code problems} is full.
   */
  static void report(String file, byte[] bytes, CsvFormat format, int fields, CsvTable table, Problems problems) {
    int[] lines = recordLines(bytes, format.delimiter(), format.quote());
    int first = format.header() ? 1 : 0;
    // The table's rows are the records after the header; if the counts disagree, rows are named by index.
    boolean mapped = lines.length - first == table.rows();
    int labelColumn = !format.hasLabelColumn() ? -1 : format.labelColumn() < 0 ? fields + format.labelColumn()
        : format.labelColumn();
    NumericArray data = table.data();
    NumericArray labels = format.classLabels() ? null : table.labels();
    int c = table.columns();
    for (int row = 0; row < table.rows() && !problems.isFull(); row++) {
      String at = mapped ? file + ":" + lines[first + row] : file + ": row " + row;
      for (int k = 0; k < c && !problems.isFull(); k++) {
        check(data, row * c + k, labelColumn >= 0 && k >= labelColumn ? k + 1 : k, at, problems);
      }
      if (labels != null && !problems.isFull()) {
        check(labels, row, labelColumn, at, problems);
      }
    }
  }

  private static void check(@Nullable NumericArray a, int i, int column, String at, Problems problems) {
    if (a == null || (a.dtype() != DType.FLOAT32 && a.dtype() != DType.FLOAT64)) {
      return;
    }
    double v = a.getDouble(i);
    if (!Double.isFinite(v)) {
      problems.report(at, "column " + column + " (0-based): expected a finite " + a.dtype().name().toLowerCase(
          java.util.Locale.ROOT) + ", found " + v + (Double.isNaN(v) ? "" : " (infinity, or a number beyond the type's "
          + "range)"));
    }
  }

  /**
   * The 1-based physical line on which each record starts, by the runtime parser's rules: records end
   * at a line feed outside quotes, blank lines (spaces, tabs, CR only) are no records, and a field that
   * starts with the quote runs to its closing quote (a doubled quote is a quote), line breaks included.
   */
  static int[] recordLines(byte[] b, byte delimiter, byte quote) {
    int[] starts = new int[64];
    int n = 0;
    int line = 1;
    int p = 0;
    while (p < b.length) {
      int q = p;
      while (q < b.length && isSpace(b[q], delimiter)) {
        q++;
      }
      if (q == b.length) {
        break;
      }
      if (b[q] == '\n') {
        line++;
        p = q + 1;
        continue;
      }
      if (n == starts.length) {
        starts = Arrays.copyOf(starts, 2 * n);
      }
      starts[n++] = line;
      boolean fieldStart = true;
      for (p = q; p < b.length && b[p] != '\n'; p++) {
        if (fieldStart && b[p] == quote) {
          // A quoted field: to the closing quote, counting the line breaks inside it.
          for (p++; p < b.length; p++) {
            if (b[p] == quote) {
              if (p + 1 < b.length && b[p + 1] == quote) {
                p++;
                continue;
              }
              break;
            }
            if (b[p] == '\n') {
              line++;
            }
          }
          fieldStart = false;
        } else if (b[p] == delimiter) {
          fieldStart = true;
        } else if (!isSpace(b[p], delimiter)) {
          fieldStart = false;
        }
      }
      line++;
      p++;
    }
    return Arrays.copyOf(starts, n);
  }

  private static boolean isSpace(byte c, byte delimiter) {
    return c == ' ' || c == '\r' || (c == '\t' && delimiter != '\t');
  }
}
