package dev.minibatch.spark;

import dev.minibatch.runtime.BatchProvider;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * A {@code @DataProvider} record's Spark schema and row ↔ record mapping, generated at compile time
 * as {@code <Sample>SparkRows} (no reflection) when Spark and this module are on the compile class
 * path. One column per record component, named like it: a primitive is a column of its Spark type
 * ({@code int} → {@code int}, {@code float} → {@code float}, …); a primitive array of any rank is
 * one flat, row-major {@code array<type>} column of the shape's element count ({@code byte[]}
 * arrays a {@code binary} column); the declared shape and the member's role ({@code data} or {@code
 * label}) are in the field's metadata under {@code minibatch.shape} and {@code minibatch.role}. An
 * encoded-image member ({@code @Provides(encoding = IMAGE_RGB) byte[]}) is a {@code binary} column
 * of any length holding the encoded bytes, its encoding under {@code minibatch.encoding} and the
 * shape they decode to under {@code minibatch.shape}; the provider decodes them.
 *
 * @param <T> the record
 * @param <P> its generated provider
 */
public interface SparkRows<T, P extends BatchProvider<?>> extends Serializable {
  /** The columns the record needs, in component order. */
  StructType schema();

  /** The record type. */
  Class<T> sampleType();

  /**
   * Checks that a DataFrame's schema holds every column of {@link #schema()} with its type (extra
   * columns are ignored; nullability is checked per row).
   *
   * @throws IllegalArgumentException naming the first missing or mistyped column, the expected and
   *     the found type
   */
  void check(StructType found);

  /**
   * The record in {@code row}, found by column name (rows without a schema: by position).
   *
   * @param index the row's global index, named in error messages; -1 if unknown
   * @throws IllegalArgumentException naming the row, the column and the problem (a null, an array of
   *     the wrong length, a mistyped value)
   */
  T fromRow(Row row, long index);

  /** {@link #fromRow(Row, long)} without a known index. */
  default T fromRow(Row row) {
    return fromRow(row, -1);
  }

  /** The record as a row of {@link #schema()}; arrays flattened row-major. */
  Row toRow(T sample);

  /** The generated provider's declared default batch size; 0 when none is declared. */
  int defaultBatchSize();

  /**
   * The generated provider over {@code samples} with {@code settings} applied.
   *
   * @throws IllegalArgumentException for invalid settings, as the builder's {@code build()}
   */
  P provider(List<? extends T> samples, ProviderSettings settings);
}
