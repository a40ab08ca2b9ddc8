package dev.minibatch.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The MNIST network trained through Spark in local[2], two trainers with parameter averaging, learns. */
class TrainMnistSparkTest {
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void twoTrainersWithParameterAveragingLearn() {
    SparkSession spark = SparkSession.builder().master("local[2]").appName("TrainMnistSparkTest")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1").getOrCreate();
    try {
      TrainMnistSpark.Options o = TrainMnistSpark.Options.parse("--trainers", "2", "--epochs", "2", "--rounds", "4",
          "--batch", "64", "--seed", "7");
      List<TrainMnistSpark.Report> reports = TrainMnistSpark.train(spark, MnistData.bundled(), o, System.out::println);
      assertEquals(2, reports.size());
      for (TrainMnistSpark.Report r : reports) {
        // DISCARD: floor(8000 / 64) = 125 full batches of 64 digits per epoch, split over the trainers
        assertEquals(125 * 64, r.samples(), "digits fitted in epoch " + r.epoch());
        assertEquals(2 * 4, r.trainerRounds(), "every trainer fits in every round");
      }
      TrainMnistSpark.Report last = reports.get(1);
      // measured: 91.9 % after epoch 1, 92.0 % after epoch 2 (seed 7)
      assertTrue(last.heldOutAccuracy() >= 0.88, "held-out accuracy " + last.heldOutAccuracy());
      assertTrue(last.loss() < reports.get(0).loss() + 0.05, "the loss does not grow: " + reports);
    } finally {
      spark.stop();
    }
  }
}
