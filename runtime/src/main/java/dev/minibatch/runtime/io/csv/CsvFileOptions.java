package dev.minibatch.runtime.io.csv;

import dev.minibatch.runtime.io.Format;
import org.jspecify.annotations.Nullable;

/**
 * The CSV format's own options ({@link Format.Options.Builder#with}); a null value is detected from
 * the file's first two lines. (The dialect these resolve to is a {@link CsvFormat}.)
 *
 * @param header whether the first line is a header; null: detected
 * @param labelColumn the label column, 0-based, negative from the end; null: the last column if it
 *     holds names
 * @param classLabels whether labels are class names; null: detected
 * @param delimiter the field delimiter
 */
public record CsvFileOptions(@Nullable Boolean header, @Nullable Integer labelColumn, @Nullable Boolean classLabels,
    char delimiter) implements Format.OwnOptions {
  /** Everything detected, fields separated by {@code ','}. */
  public static final CsvFileOptions DETECTED = new CsvFileOptions(null, null, null, ',');
}
