package dev.minibatch.samples.mnist;

import dev.minibatch.LastBatch;
import dev.minibatch.samples.SameDiffGradients;
import dev.minibatch.spark.SparkBatches;
import dev.minibatch.spark.SparkSamples;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Trains the MNIST network ({@link MnistMlp}) through Spark: the digits are a DataFrame (here made
 * from the bundled digits; a real job reads Parquet or CSV), {@link SparkSamples} numbers them
 * once, {@link SparkBatches} builds each epoch's shuffled batches on the executors with the
 * generated collate, and every partition of the batch RDD is one trainer. Training is synchronous
 * parameter averaging (DL4J's {@code ParameterAveragingTrainingMaster} scheme, written out here
 * because DL4J's Spark artifacts stop at 1.0.0-M2): each round, the driver broadcasts the
 * parameters, every trainer fits its next slice of batches from them on an executor, and the driver
 * averages what comes back. Held-out accuracy is measured on the driver after every epoch.
 *
 * <p>Run it in local mode with {@code mvn -pl samples -am test -Dtest=TrainMnistSparkTest}, or on a
 * cluster with {@code spark-submit} (docs/spark.md).
 */
public final class TrainMnistSpark {
  private static final String[] PARAMS = {"w1", "b1", "w2", "b2"};

  private TrainMnistSpark() {}

  /**
   * Settings.
   *
   * @param trainers trainers, one per batch partition
   * @param epochs passes over the training digits
   * @param rounds parameter averages per epoch
   * @param batchSize digits per batch
   * @param seed the shuffle and initialisation seed
   * @param trainLimit at most this many training digits
   */
  public record Options(int trainers, int epochs, int rounds, int batchSize, long seed, int trainLimit) {
    /** 2 trainers, 3 epochs of 4 rounds, batches of 64, seed 42, all digits. */
    public static Options defaults() {
      return new Options(2, 3, 4, 64, 42, Integer.MAX_VALUE);
    }

    /**
     * Reads {@code --trainers N --epochs N --rounds N --batch N --seed N --train-limit N}.
     *
     * @throws IllegalArgumentException for an unknown option or a missing value
     */
    public static Options parse(String... args) {
      Options o = defaults();
      for (int i = 0; i < args.length; i += 2) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option " + args[i] + " needs a value");
        }
        long v = Long.parseLong(args[i + 1]);
        o = switch (args[i]) {
          case "--trainers" -> new Options((int) v, o.epochs, o.rounds, o.batchSize, o.seed, o.trainLimit);
          case "--epochs" -> new Options(o.trainers, (int) v, o.rounds, o.batchSize, o.seed, o.trainLimit);
          case "--rounds" -> new Options(o.trainers, o.epochs, (int) v, o.batchSize, o.seed, o.trainLimit);
          case "--batch" -> new Options(o.trainers, o.epochs, o.rounds, (int) v, o.seed, o.trainLimit);
          case "--seed" -> new Options(o.trainers, o.epochs, o.rounds, o.batchSize, v, o.trainLimit);
          case "--train-limit" -> new Options(o.trainers, o.epochs, o.rounds, o.batchSize, o.seed, (int) v);
          default -> throw new IllegalArgumentException("unknown option " + args[i]
              + "; known: --trainers --epochs --rounds --batch --seed --train-limit");
        };
      }
      return o;
    }
  }

  /**
   * One epoch.
   *
   * @param epoch from 1
   * @param samples digits the trainers fitted this epoch, summed over trainers
   * @param trainerRounds (trainer, round) fits that returned parameters
   * @param seconds wall time of the epoch, Spark included
   * @param loss mean held-out cross-entropy afterwards
   * @param heldOutAccuracy held-out accuracy afterwards
   */
  public record Report(int epoch, long samples, int trainerRounds, double seconds, double loss, double heldOutAccuracy) {}

  /** What one trainer returns from a round: its parameters and the digits it fitted. */
  record Fitted(Map<String, float[]> params, long samples) implements java.io.Serializable {}

  /** Trains on {@code spark}; returns one report per epoch. */
  public static List<Report> train(SparkSession spark, MnistData data, Options o, Consumer<Report> progress) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<MnistDigit> digits = data.train().subList(0, Math.min(o.trainLimit(), data.train().size()));
    List<Row> rows = digits.stream().map(SparkDigit::of).map(SparkDigitSparkRows.INSTANCE::toRow).toList();
    Dataset<Row> df = spark.createDataFrame(rows, SparkDigitSparkRows.INSTANCE.schema()).repartition(o.trainers());
    SparkSamples<SparkDigit, SparkDigitProvider> samples = SparkSamples.builder(SparkDigitSparkRows.INSTANCE)
        .fromDataFrame(df);
    // The settings travel to the executors: capture plain values, not the (unserializable) Options.
    int batchSize = o.batchSize();
    long seed = o.seed();
    SparkBatches<SparkDigit, SparkDigitProvider> batches = samples
        .batchesBuilder(b -> b.batchSize(batchSize).shuffle(true).seed(seed).lastBatch(LastBatch.DISCARD))
        .partitions(o.trainers())
        .build();
    Nd4j.getRandom().setSeed(o.seed());
    SameDiff sd = MnistMlp.build();
    Map<String, float[]> params = params(sd);
    List<Report> reports = new ArrayList<>();
    try (MnistDigitProvider test = MnistTrainer.testProvider(data)) {
      for (int epoch = 0; epoch < o.epochs(); epoch++) {
        long t0 = System.nanoTime();
        JavaRDD<MultiDataSet> epochBatches = batches.multiDataSets(epoch).persist(StorageLevel.MEMORY_AND_DISK());
        long fitted = 0;
        int trainerRounds = 0;
        for (int round = 0; round < o.rounds(); round++) {
          Broadcast<Map<String, float[]>> current = jsc.broadcast(params);
          int r = round;
          int rounds = o.rounds();
          List<Fitted> results = epochBatches.mapPartitions(it -> fitRound(it, current.value(), r, rounds)).collect();
          current.destroy();
          if (!results.isEmpty()) {
            params = average(results);
          }
          for (Fitted f : results) {
            fitted += f.samples();
          }
          trainerRounds += results.size();
        }
        epochBatches.unpersist(false);
        setParams(sd, params);
        MnistTrainer.Evaluation e = MnistTrainer.evaluate(sd, test);
        Report report = new Report(epoch + 1, fitted, trainerRounds, (System.nanoTime() - t0) / 1e9, e.loss(), e.accuracy());
        reports.add(report);
        progress.accept(report);
      }
    } finally {
      samples.unpersist();
    }
    return reports;
  }

  /** On an executor: this trainer's slice {@code round} of {@code rounds} of its batches, fitted from {@code start}. */
  private static Iterator<Fitted> fitRound(Iterator<MultiDataSet> partition, Map<String, float[]> start, int round,
      int rounds) {
    List<MultiDataSet> mine = new ArrayList<>();
    partition.forEachRemaining(mine::add);
    int from = round * mine.size() / rounds;
    int to = (round + 1) * mine.size() / rounds;
    if (from == to) {
      return java.util.Collections.emptyIterator();
    }
    SameDiff sd = MnistMlp.build();
    setParams(sd, start);
    sd.setTrainingConfig(TrainingConfig.builder().updater(new Adam(1e-3)).l2(1e-5)
        .dataSetFeatureMapping("image").dataSetLabelMapping("label").build());
    SameDiffGradients.createQuietly(sd);
    long samples = 0;
    for (MultiDataSet batch : mine.subList(from, to)) {
      sd.fit(batch);
      samples += batch.getFeatures(0).size(0);
    }
    return List.of(new Fitted(params(sd), samples)).iterator();
  }

  private static Map<String, float[]> params(SameDiff sd) {
    Map<String, float[]> out = new HashMap<>();
    for (String name : PARAMS) {
      out.put(name, sd.getVariable(name).getArr().dup().data().asFloat());
    }
    return out;
  }

  private static void setParams(SameDiff sd, Map<String, float[]> params) {
    for (String name : PARAMS) {
      SDVariable v = sd.getVariable(name);
      v.getArr().assign(Nd4j.createFromArray(params.get(name)).reshape(v.getArr().shape()));
    }
  }

  /** The element-wise mean of the trainers' parameters (equal weights, as DL4J's averaging). */
  private static Map<String, float[]> average(List<Fitted> results) {
    Map<String, float[]> mean = new HashMap<>();
    for (String name : PARAMS) {
      float[] sum = new float[results.get(0).params().get(name).length];
      for (Fitted f : results) {
        float[] p = f.params().get(name);
        for (int i = 0; i < sum.length; i++) {
          sum[i] += p[i];
        }
      }
      for (int i = 0; i < sum.length; i++) {
        sum[i] /= results.size();
      }
      mean.put(name, sum);
    }
    return mean;
  }

  /**
   * Trains with {@code args} ({@link Options#parse}) on the session {@code spark-submit} configures,
   * or on {@code local[2]} when no master is set.
   */
  public static void main(String[] args) {
    Options o = Options.parse(args);
    SparkSession spark = SparkSession.builder().appName("minibatch TrainMnistSpark")
        .master(System.getProperty("spark.master", "local[2]"))
        .getOrCreate();
    try {
      train(spark, MnistData.bundled(), o, r -> System.out.printf(Locale.ROOT,
          "epoch %d: %d digits by %d trainer rounds in %.1f s, held-out loss %.3f, accuracy %.2f%%%n",
          r.epoch(), r.samples(), r.trainerRounds(), r.seconds(), r.loss(), 100 * r.heldOutAccuracy()));
    } finally {
      spark.stop();
    }
  }
}
