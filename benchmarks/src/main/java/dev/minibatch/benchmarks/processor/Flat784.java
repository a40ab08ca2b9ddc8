package dev.minibatch.benchmarks.processor;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** A 784-float sample (a flattened MNIST image) and its label. */
@DataProvider
public record Flat784(@Provides(shape = {784}) float[] pixels, @Provides(label = true) int label) {}
