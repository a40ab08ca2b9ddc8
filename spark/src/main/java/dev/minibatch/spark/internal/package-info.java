/**
 * Only what generated {@code <Sample>SparkRows} classes call: reading typed values out of Spark
 * rows with messages that name the row and the column, and the schema check. Not an API.
 */
@NullMarked
package dev.minibatch.spark.internal;

import org.jspecify.annotations.NullMarked;
