/**
 * The examples of {@code docs/spark.md} (executor batches, materialise-and-serve, shard sets, image and token shard sets, samples with encoded images), compiled here so
 * the page cannot drift from the API.
 */
@NullMarked
package dev.minibatch.samples.spark;

import org.jspecify.annotations.NullMarked;
