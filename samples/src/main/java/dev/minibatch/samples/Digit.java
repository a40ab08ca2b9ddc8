package dev.minibatch.samples;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * One MNIST-style digit: a 28×28 image and its class.
 *
 * @param image the pixels, row-major
 * @param label the digit, 0–9
 */
@DataProvider(batchSize = 64)
public record Digit(
    @Provides(shape = {Digit.SIDE, Digit.SIDE}) float[][] image,
    @Provides(name = "softmax_label", label = true) int label) {
  /** The side of the image. */
  public static final int SIDE = 28;
}
