package dev.minibatch.runtime.io.csv;

import dev.minibatch.runtime.io.NumericArray;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The numbers of a parsed CSV file: {@link #rows()} rows of {@link #columns()} data values,
 * row-major, and, when the format has a label column, one label per row.
 *
 * @param rows the number of data rows (header and blank lines excluded)
 * @param columns data values per row (the label column excluded)
 * @param data {@code rows * columns} values, row-major
 * @param labels one label per row, or null without a label column; int32 class indices when the
 *     format maps class names
 * @param classNames the class names by index when the format maps class names, else empty
 */
public record CsvTable(int rows, int columns, NumericArray data, @Nullable NumericArray labels, List<String> classNames) {
  /** Checks the sizes. */
  public CsvTable {
    if ((long) rows * columns != data.length()) {
      throw new IllegalArgumentException(rows + " rows x " + columns + " columns != " + data.length() + " values");
    }
    if (labels != null && labels.length() != rows) {
      throw new IllegalArgumentException(rows + " rows but " + labels.length() + " labels");
    }
    classNames = List.copyOf(classNames);
  }
}
