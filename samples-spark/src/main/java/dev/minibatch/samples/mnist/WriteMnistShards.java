package dev.minibatch.samples.mnist;

import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.SparkSamples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;

/**
 * Writes a shard set of MNIST-sized digits with Spark: {@code --samples N} rows (id, image, label),
 * row {@code i} holding bundled training digit {@code i mod 8000}, made on the executors from a
 * broadcast of the digits, numbered by their id column ({@link SparkSamples.Builder#idColumn}) and
 * written by {@link SparkSamples#writeShards} in one job. A trainer then streams the set with
 * {@code ShardProvider} (docs/spark.md, "Shard sets from Spark").
 */
public final class WriteMnistShards {
  private WriteMnistShards() {}

  /**
   * Settings.
   *
   * @param samples rows to write
   * @param directory where the shard set goes: a new directory, a local path or a Hadoop URI
   * @param samplesPerFile samples per shard file
   * @param partitions partitions of the rows, each one part of the set (its files written by one task)
   */
  public record Options(long samples, String directory, int samplesPerFile, int partitions) {
    /**
     * Reads {@code --samples N --dir D --samples-per-file N --partitions N}; defaults: 1 000 000
     * samples into {@code target/mnist-shards}, 10 000 per file, one partition per 50 000 samples
     * (at least 2).
     *
     * @throws IllegalArgumentException for an unknown option or a missing value
     */
    public static Options parse(String... args) {
      long samples = 1_000_000;
      String dir = "target/mnist-shards";
      int perFile = 10_000;
      int partitions = 0;
      for (int i = 0; i < args.length; i += 2) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option " + args[i] + " needs a value");
        }
        String v = args[i + 1];
        switch (args[i]) {
          case "--samples" -> samples = Long.parseLong(v);
          case "--dir" -> dir = v;
          case "--samples-per-file" -> perFile = Integer.parseInt(v);
          case "--partitions" -> partitions = Integer.parseInt(v);
          default -> throw new IllegalArgumentException("unknown option " + args[i]
              + "; known: --samples --dir --samples-per-file --partitions");
        }
      }
      if (samples < 1) {
        throw new IllegalArgumentException("--samples must be >= 1, got " + samples);
      }
      return new Options(samples, dir, perFile, partitions > 0 ? partitions : (int) Math.max(2, samples / 50_000));
    }
  }

  /**
   * What was written.
   *
   * @param set the shard set
   * @param indexSeconds numbering the rows by id (two jobs: the count, the placing and checking)
   * @param writeSeconds {@code writeShards} (one job and the commit)
   */
  public record Report(ShardSet set, double indexSeconds, double writeSeconds) {}

  /** The rows (id, image, label): row {@code i} holds {@code digits.get(i % size)}, made on the executors. */
  static Dataset<Row> rows(SparkSession spark, List<MnistDigit> digits, long n, int partitions) {
    float[][] images = new float[digits.size()][];
    int[] labels = new int[digits.size()];
    for (int i = 0; i < images.length; i++) {
      images[i] = digits.get(i).image();
      labels[i] = digits.get(i).label();
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<float[][]> sharedImages = jsc.broadcast(images);
    Broadcast<int[]> sharedLabels = jsc.broadcast(labels);
    JavaRDD<Row> rows = spark.range(0, n, 1, partitions).toJavaRDD().map(id -> {
      int d = (int) (id % sharedLabels.value().length);
      return RowFactory.create(id, sharedImages.value()[d], sharedLabels.value()[d]);
    });
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField("id", DataTypes.LongType, false));
    fields.addAll(Arrays.asList(SparkDigitSparkRows.INSTANCE.schema().fields()));
    return spark.createDataFrame(rows, DataTypes.createStructType(fields));
  }

  /** Writes the shard set {@code o} describes on {@code spark}. */
  public static Report write(SparkSession spark, MnistData data, Options o) {
    long t0 = System.nanoTime();
    SparkSamples<SparkDigit, SparkDigitProvider> samples = SparkSamples.builder(SparkDigitSparkRows.INSTANCE)
        .idColumn("id").fromDataFrame(rows(spark, data.train(), o.samples(), o.partitions()));
    long t1 = System.nanoTime();
    try {
      ShardSet set = samples.writeShards(o.directory(), ShardWriter.builder().samplesPerFile(o.samplesPerFile())
          .configuration(spark.sparkContext().hadoopConfiguration()).build());
      return new Report(set, (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
    } finally {
      samples.unpersist();
    }
  }

  /**
   * Writes with {@code args} ({@link Options#parse}) on the session {@code spark-submit} configures,
   * or on {@code local[2]} when no master is set; prints one line.
   */
  public static void main(String[] args) {
    Options o = Options.parse(args);
    SparkSession spark = SparkSession.builder().appName("minibatch WriteMnistShards")
        .master(System.getProperty("spark.master", "local[2]"))
        .getOrCreate();
    try {
      Report r = write(spark, MnistData.bundled(), o);
      System.out.printf(Locale.ROOT, "%s; numbered by id in %.1f s, written in %.1f s (%.0f samples/s)%n", r.set(),
          r.indexSeconds(), r.writeSeconds(), r.set().samples() / r.writeSeconds());
    } finally {
      spark.stop();
    }
  }
}
