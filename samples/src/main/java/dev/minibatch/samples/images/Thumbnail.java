package dev.minibatch.samples.images;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.SampleSchema.Encoding;

/**
 * A thumbnail as its encoded bytes, decoded to UINT8 pixels (the default for an encoded image),
 * channels last: {@code (8, 8, 3)}, layout NHWC.
 *
 * @param png the encoded image
 */
@DataProvider
public record Thumbnail(
    @Provides(shape = {8, 8, 3}, layout = "NHWC", encoding = Encoding.IMAGE_RGB) byte[] png) {}
