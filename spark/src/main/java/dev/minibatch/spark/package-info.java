/**
 * Feeding minibatch providers from Apache Spark: {@link dev.minibatch.spark.SparkRows} (generated
 * per {@code @DataProvider} record as {@code <Sample>SparkRows}: the Spark schema and the row ↔
 * record mapping), {@link dev.minibatch.spark.SparkSamples} (a DataFrame or RDD of samples with one
 * global, seeded order), batches built on the executors ({@link dev.minibatch.spark.SparkBatches}),
 * batch files ({@link dev.minibatch.spark.SavedBatches}) and Petastorm-style materialise-and-serve
 * ({@link dev.minibatch.spark.MaterializedSamples}). See {@code docs/spark.md}.
 */
@NullMarked
package dev.minibatch.spark;

import org.jspecify.annotations.NullMarked;
