package dev.minibatch.spark;

import org.apache.spark.sql.SparkSession;

/** One quiet {@code local[2]} session for a test class: no UI, few shuffle partitions. */
final class SparkTestSession {
  private SparkTestSession() {}

  static SparkSession start() {
    return SparkSession.builder()
        .master("local[2]")
        .appName("minibatch-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.adaptive.enabled", "false")
        .getOrCreate();
  }
}
