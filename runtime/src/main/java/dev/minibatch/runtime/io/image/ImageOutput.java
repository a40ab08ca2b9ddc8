package dev.minibatch.runtime.io.image;

import dev.minibatch.DType;
import dev.minibatch.shape.Shape;
import java.util.Objects;

/**
 * The decoded image one sample gives a batch: channels 1 (gray), 3 (RGB) or 4 (RGBA), height and
 * width, the layout ((c, h, w), NCHW, or with {@code channelsLast} (h, w, c), NHWC) and the element
 * type (FLOAT32, normalised, or UINT8, raw pixels). One value for the output settings that {@link
 * ImageRecordProvider.Builder}, {@link ImageDecoder.Builder} and minibatch-shards'
 * {@code ImageShardWriter.Builder} take as setters, checked in one place.
 *
 * @param channels 1, 3 or 4
 * @param height positive
 * @param width positive
 * @param channelsLast (h, w, c) rows instead of (c, h, w)
 * @param dtype FLOAT32 or UINT8
 */
public record ImageOutput(int channels, int height, int width, boolean channelsLast, DType dtype) {
  /**
   * Checks the output.
   *
   * @throws IllegalArgumentException for channels other than 1, 3 or 4, a side that is not
   *     positive, or a dtype other than FLOAT32 or UINT8
   */
  public ImageOutput {
    Objects.requireNonNull(dtype, "dtype");
    if (channels != 1 && channels != 3 && channels != 4) {
      throw new IllegalArgumentException("dataShape's channels must be 1, 3 or 4, got " + channels);
    }
    if (height <= 0 || width <= 0) {
      throw new IllegalArgumentException("dataShape's height and width must be positive, got " + height + "x" + width);
    }
    requireImageType(dtype);
  }

  /**
   * The output a builder's settings give, with its name in every message; {@code channels} 0 means
   * {@code dataShape} was never set.
   *
   * @throws IllegalStateException when {@code dataShape} was not set
   * @throws IllegalArgumentException as the constructor, the message starting with {@code owner}
   */
  public static ImageOutput of(String owner, int channels, int height, int width, boolean channelsLast, DType dtype) {
    if (channels == 0) {
      throw new IllegalStateException(owner + ": set dataShape(channels, height, width), e.g. dataShape(3, 224, 224)");
    }
    try {
      return new ImageOutput(channels, height, width, channelsLast, dtype);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(owner + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code dtype} if an image's batch can hold it, as the builders' {@code dtype} setters check it.
   *
   * @throws IllegalArgumentException for a dtype other than FLOAT32 or UINT8
   */
  public static DType requireImageType(DType dtype) {
    if (dtype != DType.FLOAT32 && dtype != DType.UINT8) {
      throw new IllegalArgumentException("image data is FLOAT32 or UINT8, got " + dtype);
    }
    return dtype;
  }

  /** One sample's shape: (channels, height, width), or (height, width, channels) with {@code channelsLast}. */
  public Shape shape() {
    return channelsLast ? Shape.of(height, width, channels) : Shape.of(channels, height, width);
  }

  /** {@code NHWC} with {@code channelsLast}, else {@code NCHW}. */
  public String layout() {
    return channelsLast ? "NHWC" : "NCHW";
  }

  /** Raw pixels (UINT8) rather than normalised floats. */
  boolean uint8() {
    return dtype == DType.UINT8;
  }
}
