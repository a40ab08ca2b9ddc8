package dev.minibatch.samples.spark;

import dev.minibatch.samples.mnist.SparkDigit;
import dev.minibatch.samples.mnist.SparkDigitBatch;
import dev.minibatch.samples.mnist.SparkDigitProvider;
import dev.minibatch.samples.mnist.SparkDigitSparkRows;
import dev.minibatch.spark.MaterializedSamples;
import dev.minibatch.spark.SparkSamples;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

class Serve {
  /** Once, on the cluster: the samples with their global index, as Parquet. */
  static void prepare(SparkSession spark, Dataset<Row> df) {
    SparkSamples.builder(SparkDigitSparkRows.INSTANCE).fromDataFrame(df).materialize("hdfs:///data/mnist-ready");
  }

  /** On trainer `rank` of `trainers` (its own local[*] session is enough to read Parquet). */
  static void train(SparkSession local, int rank, int trainers) {
    MaterializedSamples<SparkDigit, SparkDigitProvider> ready =
        MaterializedSamples.open(local, "hdfs:///data/mnist-ready", SparkDigitSparkRows.INSTANCE);
    try (SparkDigitProvider shard = ready.provider(rank, trainers, b -> b.batchSize(64).shuffle(true).seed(7))) {
      for (int epoch = 0; epoch < 10; epoch++) {
        for (SparkDigitBatch batch : shard) {
          // fit(batch.getImage(), batch.getLabel())
        }
      }
    }
  }
}
