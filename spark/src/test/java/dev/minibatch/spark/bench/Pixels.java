package dev.minibatch.spark.bench;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * An MNIST-sized sample for the Spark shard measurements: 784 floats and an int label.
 *
 * @param image 784 pixels
 * @param label the class
 */
@DataProvider
public record Pixels(@Provides(shape = {784}) float[] image, @Provides(label = true) int label) {}
