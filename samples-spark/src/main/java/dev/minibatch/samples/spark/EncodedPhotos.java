package dev.minibatch.samples.spark;

import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.SparkSamples;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.nd4j.linalg.dataset.api.MultiDataSet;

class EncodedPhotos {
  static void run(SparkSession spark) {
    Dataset<Row> df = spark.read().parquet("hdfs:///data/photos");   // id (0 .. n-1), jpeg (binary), label
    SparkSamples<SparkPhoto, SparkPhotoProvider> samples =
        SparkSamples.builder(SparkPhotoSparkRows.INSTANCE).idColumn("id").fromDataFrame(df);

    // Decoded on the executors to FLOAT32 [64, 3, 224, 224], at the declared shape, not augmented.
    JavaRDD<MultiDataSet> epoch0 = samples.batches(b -> b.batchSize(64).shuffle(true).seed(7)).multiDataSets(0);

    // The JPEGs' own bytes in a shard set; the trainers decode and augment them as they read.
    samples.writeShards("hdfs:///data/photo-shards", ShardWriter.builder().build());
    samples.unpersist();
    try (SparkPhotoProvider p = SparkPhotoProvider.builder().shards("hdfs:///data/photo-shards")
        .augment("jpeg", a -> a.randomResizedCrop(true).randMirror(true))
        .batchSize(64).shuffle(true).seed(7).build()) {
      for (SparkPhotoBatch b : p) {
        // b.getJpeg(): FLOAT32 [64, 3, 224, 224], decoded and augmented
      }
    }
  }
}
