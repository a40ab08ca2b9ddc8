package dev.minibatch.spark;

import org.apache.spark.sql.SparkSession;

/** What every Spark job that writes a shard set checks on the driver before it starts. */
final class ShardJobs {
  private ShardJobs() {}

  /**
   * Refuses a session with speculative execution: each task writes its segment's files under fixed
   * names, and two attempts of one task would write them at once.
   *
   * @throws IllegalStateException if {@code spark.speculation} is on
   */
  static void refuseSpeculation(SparkSession spark, String method) {
    if (spark.sparkContext().conf().getBoolean("spark.speculation", false)) {
      throw new IllegalStateException("spark.speculation is on: two attempts of one task would write the same shard"
          + " files at once; run " + method + " in a session with spark.speculation=false");
    }
  }
}
