package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.IntUnaryOperator;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shard sets written by Spark's executors, read back by {@link ShardProvider} on Spark's own
 * Parquet (1.13.1): point {@code i} has {@code x[0][0] = i} and label {@code i} ({@link
 * Point#of}), so every row read back says which sample it is, and the ids in order say the
 * order.
 */
class SparkShardsTest {
  private static SparkSession spark;
  private static JavaSparkContext jsc;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** The labels of one in-order epoch of the shard set, each row's features checked against its label. */
  private static int[] readInOrder(String set) {
    List<Integer> ids = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(500).build()) {
      for (NamedBatch b : p) {
        for (int r = 0; r < b.rows(); r++) {
          int id = b.get("y").getInt(r);
          assertEquals(id, b.get("x").getFloat(r, 0, 0), 0f, "row of point " + id);
          assertEquals(id + 2.5f, b.get("x").getFloat(r, 1, 2), 0f, "row of point " + id);
          ids.add(id);
        }
      }
    }
    return ids.stream().mapToInt(Integer::intValue).toArray();
  }

  private static void assertOrder(int n, IntUnaryOperator expected, int[] ids) {
    assertEquals(n, ids.length);
    for (int i = 0; i < n; i++) {
      assertEquals(expected.applyAsInt(i), ids[i], "sample " + i);
    }
  }

  @Test
  void theExecutorsWriteTheSamplesInIndexOrderInOneJobOnSparksParquet() throws Exception {
    // The executors' Parquet is Spark's, not the shards module's 1.16: this is the run that shows the
    // shard writer (and reader) keep to the API of 1.13.1.
    assertTrue(org.apache.parquet.Version.FULL_VERSION.contains("version 1.13.1"), org.apache.parquet.Version.FULL_VERSION);
    int n = 9_000;
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      points.add(Point.of(i));
    }
    Collections.shuffle(points, new Random(3));
    // Sorted by all columns: x[0][0] = id orders the points by id. 4 partitions of about 2 250 points:
    // two whole windows of the executor's provider and a partial one each.
    SparkSamples<Point, PointProvider> samples = SparkSamples.builder(PointSparkRows.INSTANCE)
        .fromRdd(spark, jsc.parallelize(points, 3));
    assertEquals(4, samples.indexedRows().getNumPartitions());
    String set = dir.resolve("points").toString();
    jsc.setJobGroup("writeShards", "the shard write");
    ShardSet written = samples.writeShards(set, ShardWriter.builder().samplesPerFile(1_000).build());
    jsc.clearJobGroup();
    assertEquals(1, jsc.statusTracker().getJobIdsForGroup("writeShards").length, "one Spark job");
    assertEquals(n, written.samples());
    // each partition's ~2 250 samples in files of 1 000: 3 files, so 12 in all
    assertEquals(12, written.files());
    assertTrue(Files.exists(dir.resolve("points").resolve("part-00003-00002.parquet")));
    assertOrder(n, i -> i, readInOrder(set));
    assertEquals(n, ShardSet.open(set).samples());

    IllegalArgumentException again = assertThrows(IllegalArgumentException.class,
        () -> samples.writeShards(set, ShardWriter.builder().build()));
    assertTrue(again.getMessage().contains("holds a shard set already"), again.getMessage());
    samples.unpersist();
  }

  /**
   * A DataFrame of rows {@code i}: id {@code ids[i]} (null for {@code Long.MIN_VALUE}) and the columns
   * of {@code Point.of(point(i))}, shuffled, in 3 partitions.
   */
  private static Dataset<Row> withIds(long[] ids, IntUnaryOperator point) {
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField("id", DataTypes.LongType, true));
    fields.addAll(List.of(PointSparkRows.INSTANCE.schema().fields()));
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      Row p = PointSparkRows.INSTANCE.toRow(Point.of(point.applyAsInt(i)));
      rows.add(RowFactory.create(ids[i] == Long.MIN_VALUE ? null : ids[i], p.get(0), p.get(1)));
    }
    Collections.shuffle(rows, new Random(5));
    StructType schema = DataTypes.createStructType(fields);
    return spark.createDataFrame(jsc.parallelize(rows, 3), schema);
  }

  private static long[] range(int n) {
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    return ids;
  }

  @Test
  void anIdColumnNumbersTheRowsWithoutTheirContent() {
    int n = 2_000;
    // Row with id i holds point (7 i) mod n: by content the order would be another.
    SparkSamples<Point, PointProvider> samples = SparkSamples.builder(PointSparkRows.INSTANCE).idColumn("id")
        .fromDataFrame(withIds(range(n), i -> (7 * i) % n));
    assertEquals(n, samples.count());
    List<scala.Tuple2<Long, Row>> first = samples.indexedRows().take(3);
    assertEquals(14, PointSparkRows.INSTANCE.fromRow(first.get(2)._2()).y(), "sample 2 is the row of id 2");
    String set = dir.resolve("by-id").toString();
    samples.writeShards(set, ShardWriter.builder().samplesPerFile(300).build());
    assertOrder(n, i -> (7 * i) % n, readInOrder(set));
    samples.unpersist();
  }

  @Test
  void anIdColumnThatIsNotZeroToNMinusOneIsNamed() {
    long[] twice = range(23);
    twice[5] = 3;
    assertIdFailure(twice, "idColumn 'id': id 3 appears twice: the column must hold each of 0 .. 22 once");
    long[] gap = range(23);
    gap[3] = 4;
    assertIdFailure(gap, "idColumn 'id': id 3 is missing");
    long[] outside = range(23);
    outside[22] = 40;
    assertIdFailure(outside, "idColumn 'id': id 40 is outside 0 .. 22");
    long[] none = range(23);
    none[7] = Long.MIN_VALUE;
    assertIdFailure(none, "idColumn 'id': a row's id is null");

    Dataset<Row> df = withIds(range(4), i -> i);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).idColumn("id").fromDataFrame(
            df.withColumn("id", df.col("id").cast("string"))));
    assertTrue(e.getMessage().contains("idColumn 'id' has type string; it must be bigint or int"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).idColumn("id").orderBy("y").fromDataFrame(df));
    assertTrue(e.getMessage().contains("set one"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).idColumn("key").fromDataFrame(df));
    assertTrue(e.getMessage().contains("idColumn 'key' is not in the DataFrame"), e.getMessage());
  }

  private static void assertIdFailure(long[] ids, String message) {
    SparkSampleException e = assertThrows(SparkSampleException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).idColumn("id").fromDataFrame(withIds(ids, i -> i)));
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  /**
   * Variable-length samples written by the executors: sentence {@code i} has {@code 1 + i mod 4} ids
   * {@code 10i, 10i + 1, …} ({@link Sentence#of}). Read back in order in batches of 64, each batch is
   * padded with 0 to 4 steps (every batch holds every length), its lengths and mask say which steps are
   * real; 2 500 sentences in 3 partitions of files of 400.
   */
  @Test
  void theExecutorsWriteVariableLengthSamplesThatReadBackPaddedWithTheirLengths() {
    int n = 2_500;
    List<Sentence> sentences = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sentences.add(Sentence.of(i));
    }
    Collections.shuffle(sentences, new Random(7));
    // Sorted by all columns: the first id, 10i, orders the sentences by i.
    SparkSamples<Sentence, SentenceProvider> s = SparkSamples.builder(SentenceSparkRows.INSTANCE)
        .fromRdd(spark, jsc.parallelize(sentences, 3));
    String set = dir.resolve("sentences").toString();
    assertEquals(n, s.writeShards(set, ShardWriter.builder().samplesPerFile(400).build()).samples());
    s.unpersist();
    int i = 0;
    try (ShardProvider p = ShardProvider.builder(set).batchSize(64).build()) {
      for (NamedBatch b : p) {
        assertEquals(4, b.get("ids").size(1), "a batch of 64 consecutive sentences holds every length 1 .. 4");
        for (int r = 0; r < b.countSamples(); r++, i++) {
          int length = 1 + i % 4;
          assertEquals(i, b.get("y").getInt(r));
          assertEquals(length, b.lengths("ids").getInt(r), "length of sentence " + i);
          for (int t = 0; t < 4; t++) {
            assertEquals(t < length ? 10 * i + t : 0, b.get("ids").getInt(r, t), "sentence " + i + " step " + t);
            assertEquals(t < length ? 1f : 0f, b.mask("ids").getFloat(r, t), "mask of sentence " + i + " step " + t);
          }
        }
      }
    }
    assertEquals(n, i);

    // The files are plain Parquet to Spark's own reader: the label a number (an INT32 column), the
    // ids a binary value of the sentence's int32s, little-endian.
    List<Row> rows = spark.read().parquet(set + "/*.parquet").collectAsList();
    assertEquals(n, rows.size());
    byte[][] idsOf = new byte[n][];
    for (Row row : rows) {
      int y = row.<Integer>getAs("y");
      assertEquals(null, idsOf[y], "sentence " + y + " once");
      idsOf[y] = row.getAs("ids");
    }
    for (int k = 0; k < n; k++) {
      ByteBuffer le = ByteBuffer.wrap(idsOf[k]).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(4 * (1 + k % 4), idsOf[k].length, "bytes of sentence " + k);
      for (int t = 0; t < idsOf[k].length / 4; t++) {
        assertEquals(10 * k + t, le.getInt(), "sentence " + k + " step " + t);
      }
    }
  }
}
