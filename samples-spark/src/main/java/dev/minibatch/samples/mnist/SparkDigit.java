package dev.minibatch.samples.mnist;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * {@link MnistDigit} as the Spark sample declares it: the same members, names and shapes, compiled
 * in this module, where Spark is on the class path, so the processor also writes {@code
 * SparkDigitSparkRows} (the main samples module stays free of Spark).
 *
 * @param image 784 pixels in [0, 1], row-major
 * @param label the digit, 0 to 9
 */
@DataProvider
public record SparkDigit(
    @Provides(shape = {MnistDigit.PIXELS}) float[] image,
    @Provides(label = true) int label) {
  /** The Spark sample's copy of {@code d}. */
  static SparkDigit of(MnistDigit d) {
    return new SparkDigit(d.image(), d.label());
  }
}
