/** Measurements of the Spark shard path (mains, not tests): indexing and shard writes on {@code local[2]}. */
@NullMarked
package dev.minibatch.spark.bench;

import org.jspecify.annotations.NullMarked;
