package dev.minibatch.samples.spark;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.samples.mnist.SparkDigit;
import dev.minibatch.samples.mnist.SparkDigitProvider;
import dev.minibatch.samples.mnist.SparkDigitSparkRows;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.SparkSamples;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

class WriteShards {
  /** Once, on the cluster: one job writes the shard set. */
  static void prepare(SparkSession spark) {
    Dataset<Row> df = spark.read().parquet("hdfs:///data/mnist");   // columns id (0 .. n-1), image, label
    SparkSamples<SparkDigit, SparkDigitProvider> samples =
        SparkSamples.builder(SparkDigitSparkRows.INSTANCE).idColumn("id").fromDataFrame(df);
    ShardWriter writer = ShardWriter.builder().samplesPerFile(10_000)
        .configuration(spark.sparkContext().hadoopConfiguration()).build();
    ShardSet set = samples.writeShards("hdfs:///data/mnist-shards", writer);
    samples.unpersist();
  }

  /** On trainer `rank` of `trainers`, no Spark: every epoch streams the files in one seeded order. */
  static void train(int rank, int trainers) {
    try (ShardProvider digits = ShardProvider.builder("hdfs:///data/mnist-shards")
        .batchSize(64).shuffle(true).seed(7).shard(trainers, rank).build()) {
      for (int epoch = 0; epoch < 10; epoch++) {
        for (NamedBatch batch : digits) {
          // fit(batch.get("image"), batch.get("label"))
        }
      }
    }
  }
}
