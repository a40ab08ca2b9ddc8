package dev.minibatch.spark;

import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.internal.EncodedSegments;
import dev.minibatch.spark.internal.RowValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.storage.StorageLevel;
import org.jspecify.annotations.Nullable;
import scala.Tuple2;

/**
 * A data set of samples in Spark with one global order: every row gets a stable index in {@code
 * [0, count)} from a deterministic sort (by the given columns, or by all the record's columns) or
 * from an {@link Builder#idColumn id column} that holds it already, so the index — and everything
 * planned from it, the seeded order, shards and batches — is the same whether the data sits in 1,
 * 2 or 7 partitions. The rows are checked against the record on the way
 * (the schema before any job, every row's values on the executors) and kept, normalised, as {@link
 * SparkRows#toRow} rows, persisted until {@link #unpersist()}.
 *
 * <pre>{@code
 * SparkSamples<Digit, DigitProvider> samples = SparkSamples.builder(DigitSparkRows.INSTANCE).fromDataFrame(df);
 * JavaRDD<DataSet> epoch0 = samples.batches(b -> b.batchSize(64).shuffle(true).seed(7)).dataSets(0);
 * ShardSet set = samples.writeShards("hdfs://nn/data/digits", ShardWriter.builder().build());
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

  /**
   * Writes the samples as a shard set in {@code directory} (a local path or a Hadoop URI: {@code
   * hdfs://}, {@code s3a://}) in one Spark job, for {@link ShardSet#provider()} on every trainer:
   * each partition's samples, built from its rows on its executor by the generated provider, are
   * one {@link ShardWriter#segment segment} of the set; the driver then {@link ShardWriter#commit
   * commits} the segments. The set's order is the samples' global index. A task that is retried
   * rewrites its segment's files; speculative execution must be off ({@code spark.speculation}),
   * since two attempts of one task would write the same files at once.
   *
   * <p>A sample with encoded-image members is written as its generated {@code <Sample>Shards} writes
   * it: each image's encoded bytes are stored as they are (not decoded), and the set's readers decode
   * them with their own image settings.
   *
   * @param writer the files' settings (samples per file, compression, the Hadoop configuration of
   *     the directory's file system, e.g. {@code spark.sparkContext().hadoopConfiguration()})
   * @return the shard set written
   * @throws IllegalArgumentException if the directory holds a shard set already, or the sample has
   *     encoded images and its mapping cannot store them (generated without {@code minibatch-shards})
   * @throws IllegalStateException if {@code spark.speculation} is on
   * @throws SparkSampleException if a sample fails on an executor (an encoded image without bytes, say)
   */
  public ShardSet writeShards(String directory, ShardWriter writer) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(writer, "writer");
    refuseUnstorableImages();
    ShardJobs.refuseSpeculation(spark, "writeShards");
    // Fails here, on the driver, for a directory that holds a shard set already or cannot be reached;
    // a segment that met no sample writes nothing.
    writer.segment(directory, 0).close();
    SparkRows<T, P> r = rows;
    List<Tuple2<Long, ShardWriter.WrittenSegment>> written = SparkSampleException.action(() -> indexed
        .mapPartitionsWithIndex((p, it) -> ShardSegment.write(p, it, r, writer, directory), true).collect());
    List<ShardWriter.WrittenSegment> segments = new ArrayList<>(written.size());
    long next = 0;
    for (Tuple2<Long, ShardWriter.WrittenSegment> t : written) {
      ShardWriter.WrittenSegment segment = t._2();
      if (segment.samples() > 0 && t._1() != next) {
        throw new IllegalStateException("partition " + segment.segment() + " starts at sample " + t._1() + ", expected " + next
            + ": the indexed rows are not in index order");
      }
      next += segment.samples();
      segments.add(segment);
    }
    if (next != count) {
      throw new IllegalStateException("the segments hold " + next + " samples, expected " + count);
    }
    return writer.commit(directory, segments);
  }

  /**
   * An encoded image is stored as its bytes, which only a mapping generated with {@code
   * minibatch-shards} on the class path can write; decoding it into the set instead would change what
   * the set holds, so such a mapping is refused.
   */
  private void refuseUnstorableImages() {
    if (rows instanceof EncodedSegments<?>) {
      return;
    }
    for (StructField f : rows.schema().fields()) {
      String encoding = RowValues.encoding(f);
      if (encoding != null) {
        throw new IllegalArgumentException("writeShards: " + rows.sampleType().getSimpleName() + "." + f.name()
            + " is an encoded " + encoding + " image, stored in a shard set as its bytes, and "
            + rows.getClass().getName() + " cannot write them (it was generated without minibatch-shards on the"
            + " compile class path); compile the sample with minibatch-shards");
      }
    }
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
    private @Nullable String idColumn;

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
     * Number the rows by this column: a {@code bigint} or {@code int} column (of the DataFrame, or a
     * member of the record) holding each of {@code 0 .. n-1} once, one per row, where {@code n} is
     * the number of rows; sample {@code i} is the row with id {@code i}. No sort over the record's
     * columns: the rows move to the partition of their id's range and are sorted there by id
     * alone, and the ids are checked on the way (a repeat, a gap or an id outside {@code 0 .. n-1}
     * fails naming it). For a unique key that is not such a range, use {@link #orderBy} with it.
     * Not together with {@link #orderBy}.
     */
    public Builder<T, P> idColumn(String column) {
      this.idColumn = Objects.requireNonNull(column, "column");
      return this;
    }

    /**
     * The samples in {@code df}: its schema is checked against the record first (before any job);
     * then rows are sorted (or placed by their {@link #idColumn}), numbered and checked one by one on
     * the executors.
     *
     * @throws IllegalArgumentException naming a missing or mistyped column, expected and found type
     * @throws SparkSampleException naming the first row that does not fit, or the first id that is
     *     repeated, missing or out of range, with the cause
     */
    public SparkSamples<T, P> fromDataFrame(Dataset<Row> df) {
      rows.check(df.schema());
      String id = idColumn;
      if (id != null) {
        if (!orderBy.isEmpty()) {
          throw new IllegalArgumentException("idColumn('" + id + "') and orderBy" + orderBy + " both number the rows;"
              + " set one");
        }
        return byId(df, id);
      }
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
          return new Tuple2<>(i, r.toRow(ExecutorSamples.sample(r, t._1(), i, i, ExecutorSamples.DATA_SET_ROW)));
        }).persist(StorageLevel.MEMORY_AND_DISK());
        return counted(spark, indexed);
      } finally {
        cached.unpersist(false);
      }
    }

    /** Counts the persisted samples (the job that checks every row) and refuses none or too many. */
    private SparkSamples<T, P> counted(SparkSession spark, JavaPairRDD<Long, Row> indexed) {
      long count = SparkSampleException.action(indexed::count);
      if (count == 0) {
        indexed.unpersist(false);
        throw new IllegalArgumentException("no samples: the DataFrame is empty");
      }
      if (count > Integer.MAX_VALUE) {
        indexed.unpersist(false);
        throw new IllegalArgumentException(count + " samples: the order plan addresses at most " + Integer.MAX_VALUE);
      }
      return new SparkSamples<>(spark, rows, indexed, count);
    }

    /**
     * The samples numbered by their id column: each row goes to the partition of its id's range
     * (known from the count alone, so no sample of the data is taken), is sorted there by id, and
     * the ids of each partition are checked to run on from the range's first without a gap or a
     * repeat while the rows are checked against the record.
     */
    private SparkSamples<T, P> byId(Dataset<Row> df, String id) {
      List<String> columns = Arrays.asList(df.schema().fieldNames());
      int at = columns.indexOf(id);
      if (at < 0) {
        throw new IllegalArgumentException("idColumn '" + id + "' is not in the DataFrame; it has columns " + columns);
      }
      DataType type = df.schema().fields()[at].dataType();
      if (!type.equals(DataTypes.LongType) && !type.equals(DataTypes.IntegerType)) {
        throw new IllegalArgumentException("idColumn '" + id + "' has type " + type.simpleString() + "; it must be bigint"
            + " or int, holding 0 .. n-1 (for another unique key, use orderBy(\"" + id + "\"))");
      }
      List<String> record = Arrays.asList(rows.schema().fieldNames());
      List<Column> selected = new ArrayList<>();
      if (!record.contains(id)) {
        selected.add(functions.col(id));
      }
      record.forEach(c -> selected.add(functions.col(c)));
      int idAt = record.contains(id) ? record.indexOf(id) : 0;
      JavaRDD<Row> input = df.select(selected.toArray(Column[]::new)).javaRDD();
      long n = SparkSampleException.action(input::count);
      if (n == 0) {
        throw new IllegalArgumentException("no samples: the DataFrame is empty");
      }
      int parts = (int) Math.min(n, Math.max(input.getNumPartitions(), df.sparkSession().sparkContext().defaultParallelism()));
      DenseIds ranges = new DenseIds(n, parts);
      SparkRows<T, P> r = rows;
      // Rows become the record's compact rows before the shuffle (Spark's rows hold arrays as Scala sequences).
      JavaPairRDD<Long, Row> keyed = input.mapToPair(row -> {
        if (row.isNullAt(idAt)) {
          throw new SparkSampleException("idColumn '" + id + "'", -1, new IllegalArgumentException("a row's id is null"));
        }
        long i = ((Number) row.get(idAt)).longValue();
        return new Tuple2<>(i, r.toRow(ExecutorSamples.sample(r, row, i, i, ExecutorSamples.DATA_SET_ROW)));
      });
      JavaRDD<Tuple2<Long, Row>> checked = keyed.repartitionAndSortWithinPartitions(ranges)
          .mapPartitionsWithIndex((p, it) -> ranges.check(p, it, id), true);
      return counted(df.sparkSession(), JavaPairRDD.fromJavaRDD(checked).persist(StorageLevel.MEMORY_AND_DISK()));
    }
  }

  /**
   * Partition {@code p} of {@code parts} holds the ids {@code [ceil(p * n / parts), ceil((p + 1) *
   * n / parts))}; an id outside {@code [0, n)} goes to the first or last partition, whose check
   * names it.
   */
  static final class DenseIds extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final long n;
    private final int parts;

    DenseIds(long n, int parts) {
      this.n = n;
      this.parts = parts;
    }

    @Override
    public int numPartitions() {
      return parts;
    }

    @Override
    public int getPartition(Object key) {
      long i = Math.max(0, Math.min(n - 1, (Long) key));
      return (int) (i * parts / n);
    }

    /** The first id of partition {@code p}; {@code first(parts) == n}. */
    long first(int p) {
      return (p * n + parts - 1) / parts;
    }

    /**
     * Partition {@code p}'s (id, row) pairs, sorted by id, passed on while they are exactly the ids
     * of its range in order.
     *
     * @throws SparkSampleException naming the first id that is repeated, missing or outside {@code
     *     [0, n)}
     */
    Iterator<Tuple2<Long, Row>> check(int p, Iterator<Tuple2<Long, Row>> sorted, String column) {
      long end = first(p + 1);
      return new Iterator<>() {
        long expected = first(p);

        @Override
        public boolean hasNext() {
          if (sorted.hasNext()) {
            return true;
          }
          if (expected < end) {
            throw wrong("id " + expected + " is missing");
          }
          return false;
        }

        @Override
        public Tuple2<Long, Row> next() {
          Tuple2<Long, Row> t = sorted.next();
          long id = t._1();
          if (id != expected) {
            throw wrong(id < 0 || id >= n ? "id " + id + " is outside 0 .. " + (n - 1)
                : id < expected ? "id " + id + " appears twice" : "id " + expected + " is missing");
          }
          expected++;
          return t;
        }

        private SparkSampleException wrong(String what) {
          return new SparkSampleException("idColumn '" + column + "'", -1, new IllegalArgumentException(what + ": the"
              + " column must hold each of 0 .. " + (n - 1) + " once, one per row (for another unique key, use orderBy)"));
        }
      };
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof DenseIds d && d.n == n && d.parts == parts;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(n) * 31 + parts;
    }
  }
}
