package dev.minibatch.spark;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.SampleSchema.Encoding;

/**
 * A test sample with an encoded-image member: a PNG's bytes, decoded to UINT8 pixels channels last,
 * {@code (4, 5, 3)}, and an id as label. Its {@code PictureSparkRows} maps the image to a binary
 * column of any length.
 *
 * @param png the encoded image
 * @param id the picture's id
 */
@DataProvider
public record Picture(
    @Provides(shape = {4, 5, 3}, layout = "NHWC", encoding = Encoding.IMAGE_RGB) byte[] png,
    @Provides(label = true) int id) {}
