package dev.minibatch.spark.bench;

import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.SparkSamples;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark's shard path measured on {@code local[2]}, in one JVM (docs/performance.md, "Spark writes
 * shards"). MNIST-sized samples ({@link Pixels}: 784 floats and an int label), generated on the
 * executors from their id (pixels a hash of id and position, so content order is not id order).
 *
 * <ul>
 *   <li>{@code index N...}: for each N, the time {@code SparkSamples} takes to number the samples
 *       by a sort over all the record's columns (the default) and by an id column ({@code
 *       idColumn}), in alternating order, each once per round;
 *   <li>{@code write N ROUNDS}: N samples numbered by id, then per round, in alternating order,
 *       {@code writeShards} (uncompressed) and Spark's own {@code df.write().parquet} of the same
 *       persisted rows ({@code toDataFrame()}, as {@code materialize} writes them), with Spark's
 *       default codec (snappy) and without compression; rows/s and the ratio per round.
 * </ul>
 */
public final class SparkShardPairs {
  private SparkShardPairs() {}

  /** {@code index 20000 200000} or {@code write 100000 4}. */
  public static void main(String[] args) throws IOException {
    SparkSession spark = SparkSession.builder().master("local[2]").appName("SparkShardPairs")
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1").getOrCreate();
    Path tmp = Files.createTempDirectory("spark-shard-pairs");
    try {
      spark.range(1).count(); // start-up and the first job's code generation, outside the timings
      if (args[0].equals("index")) {
        for (int i = 1; i < args.length; i++) {
          index(spark, Integer.parseInt(args[i]), 3);
        }
      } else if (args[0].equals("write")) {
        write(spark, Integer.parseInt(args[1]), Integer.parseInt(args[2]), tmp);
      } else {
        throw new IllegalArgumentException("index N... | write N ROUNDS");
      }
    } finally {
      spark.stop();
      delete(tmp);
    }
  }

  /** N rows (id, image, label) computed on the executors, in 2 partitions. */
  static Dataset<Row> source(SparkSession spark, int n) {
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField("id", DataTypes.LongType, false));
    fields.addAll(Arrays.asList(PixelsSparkRows.INSTANCE.schema().fields()));
    JavaRDD<Row> rows = spark.range(0, n, 1, 2).toJavaRDD().map(id -> {
      float[] image = new float[784];
      long h = id * 0x9E3779B97F4A7C15L;
      for (int k = 0; k < image.length; k++) {
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        image[k] = (h >>> 56) / 255f;
      }
      return RowFactory.create(id, image, (int) (id % 10));
    });
    return spark.createDataFrame(rows, DataTypes.createStructType(fields));
  }

  private static void index(SparkSession spark, int n, int rounds) {
    Dataset<Row> df = source(spark, n);
    for (int round = 0; round < rounds; round++) {
      double sorted = 0;
      double byId = 0;
      for (int k = 0; k < 2; k++) {
        boolean idFirst = round % 2 == 0;
        boolean id = k == 0 ? idFirst : !idFirst;
        long t0 = System.nanoTime();
        SparkSamples.Builder<Pixels, PixelsProvider> b = SparkSamples.builder(PixelsSparkRows.INSTANCE);
        SparkSamples<Pixels, PixelsProvider> s = (id ? b.idColumn("id") : b).fromDataFrame(df);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (s.count() != n) {
          throw new IllegalStateException(s.count() + " samples, expected " + n);
        }
        s.unpersist();
        if (id) {
          byId = seconds;
        } else {
          sorted = seconds;
        }
      }
      System.out.printf(Locale.ROOT, "index %d samples, round %d: sort by all columns %.2f s, idColumn %.2f s (%.1fx)%n",
          n, round, sorted, byId, sorted / byId);
    }
  }

  private static void write(SparkSession spark, int n, int rounds, Path tmp) {
    long t0 = System.nanoTime();
    SparkSamples<Pixels, PixelsProvider> s = SparkSamples.builder(PixelsSparkRows.INSTANCE).idColumn("id")
        .fromDataFrame(source(spark, n));
    System.out.printf(Locale.ROOT, "indexed %d samples by id in %.2f s%n", n, (System.nanoTime() - t0) / 1e9);
    ShardWriter writer = ShardWriter.builder().build();
    String[] kinds = {"writeShards", "parquet-snappy", "parquet-none"};
    for (int round = 0; round < rounds; round++) {
      double[] seconds = new double[kinds.length];
      for (int k = 0; k < kinds.length; k++) {
        int kind = (k + round) % kinds.length;
        Path out = tmp.resolve(kinds[kind] + "-" + round);
        long t = System.nanoTime();
        if (kind == 0) {
          ShardSet set = s.writeShards(out.toString(), writer);
          if (set.samples() != n) {
            throw new IllegalStateException(set + ", expected " + n + " samples");
          }
        } else {
          s.toDataFrame().write().option("compression", kind == 1 ? "snappy" : "none").parquet(out.toString());
        }
        seconds[kind] = (System.nanoTime() - t) / 1e9;
        delete(out);
      }
      System.out.printf(Locale.ROOT, "write %d samples, round %d%s: writeShards %.0f rows/s, parquet snappy %.0f rows/s"
          + " (ratio %.2f), parquet none %.0f rows/s (ratio %.2f)%n", n, round, round == 0 ? " (warm-up)" : "",
          n / seconds[0], n / seconds[1], seconds[1] / seconds[0], n / seconds[2], seconds[2] / seconds[0]);
    }
    s.unpersist();
  }

  private static void delete(Path p) {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
