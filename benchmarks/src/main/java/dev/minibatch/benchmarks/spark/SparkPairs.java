package dev.minibatch.benchmarks.spark;

import dev.minibatch.LastBatch;
import dev.minibatch.benchmarks.processor.Flat784;
import dev.minibatch.benchmarks.processor.Flat784Batch;
import dev.minibatch.benchmarks.processor.Flat784Provider;
import dev.minibatch.benchmarks.processor.Flat784SparkRows;
import dev.minibatch.spark.SparkBatches;
import dev.minibatch.spark.SparkSamples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark path against the single-JVM provider on the same data, measured pair by pair: 20 000
 * MNIST-sized samples ({@link Flat784}), batches of 64, shuffled. Per round, one epoch of each, back
 * to back in alternating order: the generated provider over a List (one thread, reused buffers),
 * and {@link SparkBatches} building the epoch's batches on the executors of a {@code local[2]}
 * session ({@code count()} of the {@code MultiDataSet} RDD: planning, the shuffle of the rows to
 * their batches, {@code fromRow}, the generated collate, a fresh {@code MultiDataSet} per batch).
 * Prints batches/s of both and their ratio (median and range over the rounds); before that, Spark's
 * fixed costs: session creation, the first job, and the one-time indexing of the data set; after,
 * where a Spark epoch's time goes.
 *
 * <p>Run (JDK 17 needs Spark's add-opens, the {@code spark.addOpens} property of the root pom;
 * figures in {@code docs/performance.md}):
 * <pre>
 * mvn -B -ntp -pl benchmarks -am -DskipTests package dependency:build-classpath -Dmdep.outputFile=/tmp/spark-bench.cp
 * OMP_NUM_THREADS=1 java $(sed -n 's:.*&lt;spark.addOpens&gt;\(.*\)&lt;/spark.addOpens&gt;.*:\1:p' pom.xml) -Xmx6g \
 *   -Dlog4j2.configurationFile=spark/src/test/resources/log4j2.properties \
 *   -cp "benchmarks/target/classes:$(cat /tmp/spark-bench.cp)" dev.minibatch.benchmarks.spark.SparkPairs 5
 * </pre>
 */
public final class SparkPairs {
  static final int SAMPLES = 20_000;
  static final int BATCH = 64;
  static final long SEED = 11;

  private SparkPairs() {}

  /** {@code args[0]} rounds (default 5) after one warm-up round. */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    List<Flat784> data = new ArrayList<>(SAMPLES);
    SplittableRandom rng = new SplittableRandom(SEED);
    for (int i = 0; i < SAMPLES; i++) {
      float[] pixels = new float[784];
      for (int k = 0; k < pixels.length; k++) {
        pixels[k] = (float) rng.nextDouble();
      }
      data.add(new Flat784(pixels, i % 10));
    }

    long t0 = System.nanoTime();
    SparkSession spark = SparkSession.builder().master("local[2]").appName("SparkPairs")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1").getOrCreate();
    long t1 = System.nanoTime();
    spark.range(1).count();
    long t2 = System.nanoTime();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    SparkSamples<Flat784, Flat784Provider> samples = SparkSamples.builder(Flat784SparkRows.INSTANCE)
        .fromDataFrame(spark.createDataFrame(
            jsc.parallelize(data.stream().map(Flat784SparkRows.INSTANCE::toRow).toList(), 4),
            Flat784SparkRows.INSTANCE.schema()));
    long t3 = System.nanoTime();
    System.out.printf(Locale.ROOT, "spark fixed costs: session %.2f s, first job %.2f s, indexing %d samples %.2f s%n",
        (t1 - t0) / 1e9, (t2 - t1) / 1e9, SAMPLES, (t3 - t2) / 1e9);

    SparkBatches<Flat784, Flat784Provider> sparkBatches = samples.batchesBuilder(
        b -> b.batchSize(BATCH).shuffle(true).seed(SEED).lastBatch(LastBatch.PARTIAL)).partitions(2).build();
    long batchesPerEpoch = (SAMPLES + BATCH - 1) / BATCH;
    double[] local = new double[rounds];
    double[] distributed = new double[rounds];
    try (Flat784Provider provider = Flat784Provider.create(b -> b.samples(data).batchSize(BATCH).shuffle(true)
        .seed(SEED).lastBatch(LastBatch.PARTIAL))) {
      for (int r = -1; r < rounds; r++) {
        double l = 0;
        double s = 0;
        for (int k = 0; k < 2; k++) {
          if ((k == 0) == (r % 2 == 0)) {
            long a = System.nanoTime();
            long n = 0;
            for (Flat784Batch b : provider) {
              n += b.countSamples();
            }
            check(n == SAMPLES, "local epoch delivered " + n);
            l = batchesPerEpoch / ((System.nanoTime() - a) / 1e9);
          } else {
            long a = System.nanoTime();
            long n = sparkBatches.multiDataSets(Math.max(r, 0)).count();
            check(n == batchesPerEpoch, "spark epoch built " + n + " batches");
            s = batchesPerEpoch / ((System.nanoTime() - a) / 1e9);
          }
        }
        if (r >= 0) {
          local[r] = l;
          distributed[r] = s;
          System.out.printf(Locale.ROOT, "round %d: local %.0f batches/s, spark %.0f batches/s, ratio %.3f%n", r, l, s,
              s / l);
        }
      }
      // Where a Spark epoch's time goes: a pass over the persisted rows, the same with fromRow, and
      // the whole epoch (plan, shuffle to the batches' partitions, collate).
      double pass = 0;
      double decode = 0;
      for (int k = 0; k < 3; k++) {
        long a = System.nanoTime();
        samples.indexedRows().count();
        pass += (System.nanoTime() - a) / 3e9;
        a = System.nanoTime();
        samples.indexedRows().map(t -> Flat784SparkRows.INSTANCE.fromRow(t._2(), t._1()).label()).count();
        decode += (System.nanoTime() - a) / 3e9;
      }
      System.out.printf(Locale.ROOT, "spark epoch parts: pass over persisted rows %.3f s, with fromRow %.3f s, "
          + "whole epoch %.3f s%n", pass, decode, batchesPerEpoch / median(distributed));
    } finally {
      samples.unpersist();
      spark.stop();
    }
    double[] ratio = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      ratio[r] = distributed[r] / local[r];
    }
    System.out.printf(Locale.ROOT, "median: local %.0f batches/s, spark %.0f batches/s, spark/local %.3f (range %.3f-%.3f)%n",
        median(local), median(distributed), median(ratio), Arrays.stream(ratio).min().orElse(0),
        Arrays.stream(ratio).max().orElse(0));
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
