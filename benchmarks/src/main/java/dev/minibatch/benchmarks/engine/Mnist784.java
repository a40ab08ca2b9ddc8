package dev.minibatch.benchmarks.engine;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** An MNIST-sized sample as a record: 784 float32 features and a 10-class one-hot float label. */
@DataProvider
public record Mnist784(@Provides(shape = {784}) float[] image, @Provides(shape = {10}, label = true) float[] label) {}
