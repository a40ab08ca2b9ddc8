package dev.minibatch.samples.spark;

import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.SparkTokenShards;
import dev.minibatch.text.Packing;
import dev.minibatch.text.TokenShards;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

class WriteTokenShards {
  /** Once, on the cluster: the corpus tokenised on the executors and written as a token shard set. */
  static void prepare(SparkSession spark) {
    Dataset<Row> corpus = spark.read().parquet("hdfs:///data/corpus");   // columns id: bigint, text: string
    TokenShards.Written written = SparkTokenShards.builder()
        .tokenizer("cl100k_base")    // a bundled tokeniser, by name; each executor loads it once
        .idColumn("id")              // optional: documents sorted by it, each with its id
        .writer(ShardWriter.builder().samplesPerFile(100_000)
            .configuration(spark.sparkContext().hadoopConfiguration()).build())
        .build()
        .write(corpus, "text", "hdfs:///data/corpus-tokens");
    System.out.println(written.shards().samples() + " documents, " + written.tokens() + " tokens");
  }

  /** On each trainer, no Spark: rows of 2 048 tokens packed from the documents (docs/text.md). */
  static void train() {
    try (ShardProvider tokens = ShardProvider.builder("hdfs:///data/corpus-tokens").batchSize(256).build()) {
      Packing packing = Packing.builder(2048).bestFit(64).build();
      packing.rows(tokens).forEach(row -> {
        // row.ids(), row.segmentIds(), row.positionIds(), row.boundaries()
      });
    }
  }
}
