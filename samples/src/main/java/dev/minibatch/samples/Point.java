package dev.minibatch.samples;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * The smallest sample: two coordinates and a class label. Generates {@code PointProvider} and
 * {@code PointBatch} next to it.
 *
 * @param xy the coordinates
 * @param label the class
 */
@DataProvider
public record Point(
    @Provides(shape = {2}) float[] xy,
    @Provides(name = "softmax_label", label = true) int label) {}
