package dev.minibatch.samples.mnist;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * One MNIST digit as the network sees it: 784 pixels in [0, 1], row-major, and the class. The
 * processor generates {@code MnistDigitProvider} and {@code MnistDigitBatch} from this record; the
 * names {@code "image"} and {@code "label"} are the SameDiff placeholders' names.
 *
 * @param image the 28×28 pixels, flattened row-major, scaled to [0, 1]
 * @param label the digit, 0–9
 */
@DataProvider
public record MnistDigit(
    @Provides(shape = {MnistDigit.PIXELS}) float[] image,
    @Provides(label = true) int label) {
  /** Pixels per image. */
  public static final int PIXELS = 28 * 28;
}
