package dev.minibatch.samples.images;

import dev.minibatch.DType;
import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.SampleSchema.Encoding;

/**
 * A photo as its JPEG (or PNG) bytes, decoded, augmented and normalised by the generated provider
 * on its reader threads into a FLOAT32 {@code (3, 24, 24)} array, channels first, red first; and
 * its class. The builder's {@code augment("jpeg", …)} and {@code normalize("jpeg", …)} say how.
 *
 * @param jpeg the encoded image
 * @param label the class
 */
@DataProvider
public record Photo(
    @Provides(shape = {3, 24, 24}, dtype = DType.FLOAT32, encoding = Encoding.IMAGE_RGB) byte[] jpeg,
    @Provides(name = "softmax_label", label = true) int label) {}
