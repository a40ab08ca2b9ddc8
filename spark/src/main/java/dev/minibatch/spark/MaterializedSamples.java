package dev.minibatch.spark;

import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.check.Check;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Samples written once to Parquet with their global index (Petastorm's converter, for the JVM),
 * served to N trainers: each gets a normal generated provider over its shard, so shuffling,
 * every last-batch policy, resume and stats are the engine's.
 *
 * <p>{@link #provider} keeps the one global order: the trainer loads the samples (in index order)
 * and the provider takes shard {@code shard} of {@code numShards} of each epoch's permutation —
 * the shards are disjoint and covering, and their rows, in order, are the one-trainer order's
 * blocks, however the data was partitioned when it was written. It holds the whole data set in the
 * trainer's memory. {@link #blockProvider} reads only a fixed block of the index (Petastorm's
 * shards: less memory and I/O, but each trainer shuffles within its block, so the order depends on
 * the number of trainers).
 *
 * @param <T> the record
 * @param <P> its generated provider
 */
public final class MaterializedSamples<T, P extends BatchProvider<?>> {
  /** The index column of the Parquet files. */
  public static final String INDEX_COLUMN = "_minibatch_index";

  private final SparkSession spark;
  private final SparkRows<T, P> rows;
  private final String path;
  private final long count;

  MaterializedSamples(SparkSession spark, SparkRows<T, P> rows, String path, long count) {
    this.spark = spark;
    this.rows = rows;
    this.path = path;
    this.count = count;
  }

  /**
   * The samples materialised at {@code path}, read with {@code spark} (on a trainer, a {@code
   * local[*]} session is enough). The schema is checked, the count read from the Parquet footers.
   *
   * @throws IllegalArgumentException if the files lack the index column or a record column, or
   *     have one of the wrong type
   */
  public static <T, P extends BatchProvider<?>> MaterializedSamples<T, P> open(SparkSession spark, String path,
      SparkRows<T, P> rows) {
    Dataset<Row> df = spark.read().parquet(path);
    StructType schema = df.schema();
    int i = Arrays.asList(schema.fieldNames()).indexOf(INDEX_COLUMN);
    if (i < 0 || !schema.fields()[i].dataType().equals(DataTypes.LongType)) {
      throw new IllegalArgumentException(path + " is not materialised samples: it has no " + INDEX_COLUMN
          + " column of type bigint; its columns are " + Arrays.toString(schema.fieldNames()));
    }
    rows.check(schema);
    return new MaterializedSamples<>(spark, rows, path, df.count());
  }

  /** Where the Parquet files are. */
  public String path() {
    return path;
  }

  /** The number of samples. */
  public long count() {
    return count;
  }

  /**
   * The provider of trainer {@code shard} of {@code numShards}, in the global order: {@code
   * settings} (batch size, policy, shuffle, seed — with shuffle and several shards, a seed) plus
   * {@code shard(numShards, shard)}.
   *
   * @throws IllegalArgumentException for invalid settings or an empty shard
   */
  public P provider(int shard, int numShards, ProviderSettings settings) {
    checkShard(shard, numShards);
    List<T> all = read(0, count);
    return rows.provider(all, b -> {
      settings.accept(b);
      b.shard(numShards, shard);
    });
  }

  /**
   * A provider over only the fixed block {@code [floor(shard * n / numShards), floor((shard + 1) * n
   * / numShards))} of the index, with {@code settings} (it shuffles within the block).
   */
  public P blockProvider(int shard, int numShards, ProviderSettings settings) {
    checkShard(shard, numShards);
    long from = shard * count / numShards;
    long to = (shard + 1) * count / numShards;
    List<T> block = read(from, to);
    return rows.provider(block, b -> {
      settings.accept(b);
      b.shard(1, 0);
    });
  }

  /** The samples with index in {@code [from, to)}, in index order. */
  public List<T> read(long from, long to) {
    Dataset<Row> df = spark.read().parquet(path)
        .filter(functions.col(INDEX_COLUMN).geq(from).and(functions.col(INDEX_COLUMN).lt(to)))
        .orderBy(INDEX_COLUMN);
    List<Row> collected = SparkSampleException.action(df::collectAsList);
    List<T> out = new ArrayList<>(collected.size());
    long expect = from;
    ExecutorSamples.Where where = (index, position) -> "row " + index + " of " + path;
    for (Row r : collected) {
      long index = r.getLong(r.fieldIndex(INDEX_COLUMN));
      if (index != expect) {
        throw new IllegalStateException(path + ": expected the sample with index " + expect + ", found " + index
            + " (the files were changed after they were written?)");
      }
      out.add(ExecutorSamples.sample(rows, r, index, index, where));
      expect++;
    }
    if (expect != to) {
      throw new IllegalStateException(path + ": samples " + expect + " to " + (to - 1) + " are missing");
    }
    return out;
  }

  private static void checkShard(int shard, int numShards) {
    Check.atLeast("numShards", numShards, 1);
    Check.inRange("shard", shard, 0, numShards);
  }

  @Override
  public String toString() {
    return "MaterializedSamples[" + count + " samples at " + path + "]";
  }

  /** The record columns, for callers that read the files themselves. */
  public List<StructField> columns() {
    return Arrays.asList(rows.schema().fields());
  }
}
