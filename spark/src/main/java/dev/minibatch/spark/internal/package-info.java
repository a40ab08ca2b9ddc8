/**
 * Only what generated {@code <Sample>SparkRows} classes call: reading typed values out of Spark
 * rows with messages that name the row and the column, the schema check, and the column metadata
 * (role, shape) the generated schema carries and the module reads. Not an API.
 */
@NullMarked
package dev.minibatch.spark.internal;

import org.jspecify.annotations.NullMarked;
