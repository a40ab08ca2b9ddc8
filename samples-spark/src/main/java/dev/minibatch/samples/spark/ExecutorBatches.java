package dev.minibatch.samples.spark;

import dev.minibatch.LastBatch;
import dev.minibatch.samples.mnist.SparkDigit;
import dev.minibatch.samples.mnist.SparkDigitProvider;
import dev.minibatch.samples.mnist.SparkDigitSparkRows;
import dev.minibatch.spark.SparkBatches;
import dev.minibatch.spark.SparkSamples;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.nd4j.linalg.dataset.DataSet;

class ExecutorBatches {
  static void run(SparkSession spark) {
    Dataset<Row> df = spark.read().parquet("hdfs:///data/mnist");   // any source: CSV, JDBC, a join…
    SparkSamples<SparkDigit, SparkDigitProvider> samples =
        SparkSamples.builder(SparkDigitSparkRows.INSTANCE).fromDataFrame(df);

    SparkBatches<SparkDigit, SparkDigitProvider> batches = samples
        .batchesBuilder(b -> b.batchSize(64).shuffle(true).seed(7).lastBatch(LastBatch.DISCARD))
        .partitions(8)
        .build();
    for (int epoch = 0; epoch < 10; epoch++) {
      JavaRDD<DataSet> epochBatches = batches.dataSets(epoch);   // batch j of the epoch is element j
      // e.g. new SparkDl4jMultiLayer(sc, conf, trainingMaster).fit(epochBatches)
    }
    // or files: DL4J's fitPaths, or SavedBatches.dataSets(dir) on one machine
    List<String> files = batches.save("hdfs:///data/mnist-batches/epoch-0", 0, SparkBatches.Format.DATA_SET);
    samples.unpersist();
  }
}
