package dev.minibatch.spark;

import dev.minibatch.runtime.BatchProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * A data set of samples in Spark with one global order: every row gets a stable index in {@code
 * [0, count)} from a deterministic sort (by the given columns, or by all the record's columns), so
 * the index — and everything planned from it, the seeded order, shards and batches — is the same
 * whether the data sits in 1, 2 or 7 partitions. The rows are checked against the record on the way
 * (the schema before any job, every row's values on the executors) and kept, normalised, as {@link
 * SparkRows#toRow} rows, persisted until {@link #unpersist()}.
 *
 * <pre>{@code
 * SparkSamples<Digit, DigitProvider> samples = SparkSamples.builder(DigitSparkRows.INSTANCE).fromDataFrame(df);
 * JavaRDD<DataSet> epoch0 = samples.batches(b -> b.batchSize(64).shuffle(true).seed(7)).dataSets(0);
 * }</pre>
 *
 * @param <T> the record
 * @param <P> its generated provider
 */
public final class SparkSamples<T, P extends BatchProvider<?>> {
  private final SparkSession spark;
  private final SparkRows<T, P> rows;
  private final JavaPairRDD<Long, Row> indexed;
  private final long count;

  private SparkSamples(SparkSession spark, SparkRows<T, P> rows, JavaPairRDD<Long, Row> indexed, long count) {
    this.spark = spark;
    this.rows = rows;
    this.indexed = indexed;
    this.count = count;
  }

  /** A builder for samples of the record {@code rows} maps. */
  public static <T, P extends BatchProvider<?>> Builder<T, P> builder(SparkRows<T, P> rows) {
    return new Builder<>(rows);
  }

  /** The record mapping. */
  public SparkRows<T, P> rows() {
    return rows;
  }

  /** The number of samples. */
  public long count() {
    return count;
  }

  /** The session the samples live in. */
  public SparkSession session() {
    return spark;
  }

  /**
   * The samples as (global index, row of {@link SparkRows#schema()}) pairs; persisted. Partitions
   * hold contiguous index ranges in ascending order.
   */
  public JavaPairRDD<Long, Row> indexedRows() {
    return indexed;
  }

  /** The samples with their index as a DataFrame: {@link MaterializedSamples#INDEX_COLUMN}, then the record's columns. */
  public Dataset<Row> toDataFrame() {
    List<StructField> fields = new ArrayList<>();
    fields.add(org.apache.spark.sql.types.DataTypes.createStructField(MaterializedSamples.INDEX_COLUMN,
        org.apache.spark.sql.types.DataTypes.LongType, false));
    fields.addAll(Arrays.asList(rows.schema().fields()));
    JavaRDD<Row> withIndex = indexed.map(t -> {
      Object[] values = new Object[t._2().length() + 1];
      values[0] = t._1();
      for (int i = 0; i < t._2().length(); i++) {
        values[i + 1] = t._2().get(i);
      }
      return org.apache.spark.sql.RowFactory.create(values);
    });
    return spark.createDataFrame(withIndex, org.apache.spark.sql.types.DataTypes.createStructType(fields));
  }

  /** Batches of these samples built on the executors, with {@code settings} (batch size, policy, shuffle, seed). */
  public SparkBatches<T, P> batches(ProviderSettings settings) {
    return SparkBatches.builder(this, settings).build();
  }

  /** {@link #batches(ProviderSettings)} with more options: the shard, the number of output partitions. */
  public SparkBatches.Builder<T, P> batchesBuilder(ProviderSettings settings) {
    return SparkBatches.builder(this, settings);
  }

  /**
   * Writes the samples once to Parquet at {@code path} (with their index column), for trainers to
   * read their shards from ({@link MaterializedSamples#open}).
   *
   * @throws SparkSampleException if a sample fails on an executor
   */
  public MaterializedSamples<T, P> materialize(String path) {
    SparkSampleException.action(() -> {
      toDataFrame().write().parquet(path);
      return null;
    });
    return new MaterializedSamples<>(spark, rows, path, count);
  }

  /** Releases the persisted rows. */
  public void unpersist() {
    indexed.unpersist(false);
  }

  /**
   * Builds {@link SparkSamples}: the sort that fixes the global index.
   *
   * @param <T> the record
   * @param <P> its generated provider
   */
  public static final class Builder<T, P extends BatchProvider<?>> {
    private final SparkRows<T, P> rows;
    private List<String> orderBy = List.of();

    private Builder(SparkRows<T, P> rows) {
      this.rows = Objects.requireNonNull(rows, "rows");
    }

    /**
     * Sort by these columns to number the rows (an id column, say). They must order the rows
     * totally for the index to be stable; rows that tie are only interchangeable when they are
     * equal. Default: all the record's columns (a content order: equal rows are interchangeable).
     */
    public Builder<T, P> orderBy(String... columns) {
      this.orderBy = List.of(columns);
      return this;
    }

    /**
     * The samples in {@code df}: its schema is checked against the record first (before any job);
     * then rows are sorted, numbered and checked one by one on the executors.
     *
     * @throws IllegalArgumentException naming a missing or mistyped column, expected and found type
     * @throws SparkSampleException naming the first row that does not fit, with the cause
     */
    public SparkSamples<T, P> fromDataFrame(Dataset<Row> df) {
      rows.check(df.schema());
      for (String c : orderBy) {
        if (!Arrays.asList(df.schema().fieldNames()).contains(c)) {
          throw new IllegalArgumentException("orderBy column '" + c + "' is not in the DataFrame; it has columns "
              + Arrays.toString(df.schema().fieldNames()));
        }
      }
      String[] names = rows.schema().fieldNames();
      Column[] record = Arrays.stream(names).map(functions::col).toArray(Column[]::new);
      Column[] keys = orderBy.isEmpty() ? record : orderBy.stream().map(functions::col).toArray(Column[]::new);
      // Sorting and numbering run jobs (the range partitioner's sample, zipWithIndex's counts).
      return SparkSampleException.action(() -> index(df.sparkSession(), df.orderBy(keys).select(record).javaRDD()));
    }

    /**
     * The samples in {@code rdd}, turned into rows ({@link SparkRows#toRow}) on the executors and
     * numbered as {@link #fromDataFrame}.
     *
     * @throws SparkSampleException naming the first record that does not fit (by input partition
     *     and position), with the cause
     */
    public SparkSamples<T, P> fromRdd(SparkSession spark, JavaRDD<T> rdd) {
      SparkRows<T, P> r = rows;
      JavaRDD<Row> asRows = rdd.mapPartitionsWithIndex((part, it) -> {
        List<Row> out = new ArrayList<>();
        int k = 0;
        while (it.hasNext()) {
          T sample = it.next();
          try {
            out.add(r.toRow(sample));
          } catch (RuntimeException e) {
            throw new SparkSampleException("record " + k + " of input partition " + part, -1, e);
          }
          k++;
        }
        return out.iterator();
      }, true);
      return fromDataFrame(spark.createDataFrame(asRows, rows.schema()));
    }

    private SparkSamples<T, P> index(SparkSession spark, JavaRDD<Row> sorted) {
      SparkRows<T, P> r = rows;
      JavaRDD<Row> cached = sorted.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        JavaPairRDD<Long, Row> indexed = cached.zipWithIndex().mapToPair(t -> {
          long i = t._2();
          try {
            return new Tuple2<>(i, r.toRow(r.fromRow(t._1(), i)));
          } catch (RuntimeException e) {
            throw new SparkSampleException("row " + i + " of the data set", i, e);
          }
        }).persist(StorageLevel.MEMORY_AND_DISK());
        long count = SparkSampleException.action(indexed::count);
        if (count == 0) {
          indexed.unpersist(false);
          throw new IllegalArgumentException("no samples: the DataFrame is empty");
        }
        if (count > Integer.MAX_VALUE) {
          indexed.unpersist(false);
          throw new IllegalArgumentException(count + " samples: the order plan addresses at most " + Integer.MAX_VALUE);
        }
        return new SparkSamples<>(spark, r, indexed, count);
      } finally {
        cached.unpersist(false);
      }
    }
  }
}
