package dev.minibatch.samples.spark;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.SparkImageShards;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

class WriteImageShards {
  /** Once, on the cluster: the JPEGs of hdfs:///photos/<class>/<image> as a shard set, in one job. */
  static void prepare(SparkSession spark) {
    ImageShardWriter images = ImageShardWriter.builder().dataShape(3, 224, 224)
        .writer(ShardWriter.builder().samplesPerFile(5_000)
            .configuration(spark.sparkContext().hadoopConfiguration()).build())
        .build();
    Dataset<Row> files = spark.read().format("binaryFile").load("hdfs:///photos/*/*");
    ShardSet set = SparkImageShards.writeClassFolders(images, files, "hdfs:///data/photos-shards");

    // Or any DataFrame with the encoded bytes and a label (a number, or array<float> for packed labels).
    Dataset<Row> table = spark.read().parquet("hdfs:///data/photo-table");   // columns jpeg: binary, label: int
    SparkImageShards.write(images, table.orderBy("id"), "jpeg", "label", "hdfs:///data/table-shards");
  }

  /** On each trainer, no Spark: decoded and augmented on the reader threads. */
  static void train() {
    try (ShardProvider photos = ShardProvider.builder("hdfs:///data/photos-shards")
        .augment("data", a -> a.randomResizedCrop(true).randMirror(true))
        .batchSize(64).shuffle(true).seed(7).readers(4).build()) {
      for (NamedBatch batch : photos) {
        // fit(batch.get("data"), batch.get("softmax_label"))
      }
    }
  }
}
