package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.minibatch.LastBatch;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/**
 * Variable-length samples through Spark: a rank-1 variable member is an array column of any
 * length, and the executors' batches are padded per batch with their masks, the same for any
 * partition count.
 */
class VariableLengthSparkTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void sentencesOfAnyLengthArePaddedPerBatchOnTheExecutors() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rows.add(SentenceSparkRows.INSTANCE.toRow(Sentence.of(i)));
    }
    for (int partitions : new int[] {1, 3}) {
      Dataset<Row> df = spark.createDataFrame(
          JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(rows, partitions),
          SentenceSparkRows.INSTANCE.schema());
      SparkSamples<Sentence, SentenceProvider> s = SparkSamples.builder(SentenceSparkRows.INSTANCE).orderBy("y")
          .fromDataFrame(df);
      List<MultiDataSet> batches = s.batches(b -> b.batchSize(4).lastBatch(LastBatch.PARTIAL)).multiDataSets(0)
          .collect();
      assertEquals(3, batches.size());
      // Sentences 0..3 have 1..4 ids: padded to 4 with 0, masked.
      assertArrayEquals(new int[][] {{0, 0, 0, 0}, {10, 11, 0, 0}, {20, 21, 22, 0}, {30, 31, 32, 33}},
          batches.get(0).getFeatures(0).toIntMatrix(), partitions + " partitions");
      assertArrayEquals(new float[][] {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}},
          batches.get(0).getFeaturesMaskArray(0).toFloatMatrix());
      // Sentences 8 and 9 have 1 and 2 ids: this batch is 2 steps long.
      assertArrayEquals(new int[][] {{80, 0}, {90, 91}}, batches.get(2).getFeatures(0).toIntMatrix());
      assertArrayEquals(new int[] {8, 9}, batches.get(2).getLabels(0).toIntVector());
      s.unpersist();
    }
  }
}
