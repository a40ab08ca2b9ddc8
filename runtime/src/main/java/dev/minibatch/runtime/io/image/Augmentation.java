package dev.minibatch.runtime.io.image;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The output shape and the augmentation and normalisation settings of MXNet's default augmenter and
 * normaliser, as built by {@link ImageRecordProvider.Augment} and {@link ImageRecordProvider.Normalize}
 * (which check them and hold MXNet's defaults). Immutable.
 */
record Augmentation(int channels, int height, int width, Augments augments, Normalization normalization) {

  /**
   * The {@code augment(...)} group: where to crop (or the random resized crop), the affine step,
   * colour noise, colour jitter and random gray, and the pixel options.
   */
  record Augments(Crop crop, ResizedCrop resizedCrop, Affine affine, Colour colour, Jitter jitter, int fillValue,
      int interMethod, boolean mirror, boolean randMirror) {}

  /** Resize, pad and crop (MXNet {@code resize}, {@code pad}, {@code rand_crop}, {@code crop_*}, {@code *_crop_size}). */
  record Crop(int resize, int pad, boolean randCrop, int cropYStart, int cropXStart, int maxCropSize,
      int minCropSize) {}

  /**
   * torchvision's RandomResizedCrop: whether it replaces the crop step, the range of the crop's area
   * as a fraction of the image's, and the range of its width/height ratio.
   */
  record ResizedCrop(boolean on, float minArea, float maxArea, float minRatio, float maxRatio) {}

  /** The affine step: rotation, aspect, shear, random scale and the size limits. */
  record Affine(float maxRotateAngle, int rotate, float maxAspectRatio, float maxShearRatio, float maxRandomScale,
      float minRandomScale, float maxImgSize, float minImgSize) {}

  /** HSL jitter, contrast, illumination and PCA lighting noise. */
  record Colour(int randomH, int randomS, int randomL, float maxRandomContrast, float maxRandomIllumination,
      float pcaNoise) {}

  /**
   * torchvision's ColorJitter and RandomGrayscale: the ranges the brightness, contrast and
   * saturation factors and the hue shift (a fraction of the hue circle) are drawn from, and the
   * probability of turning the image gray. A factor range of [1, 1] or a hue range of [0, 0] is off.
   */
  record Jitter(float minBrightness, float maxBrightness, float minContrast, float maxContrast, float minSaturation,
      float maxSaturation, float minHue, float maxHue, float grayProbability) {

    boolean brightness() {
      return minBrightness != 1 || maxBrightness != 1;
    }

    boolean contrast() {
      return minContrast != 1 || maxContrast != 1;
    }

    boolean saturation() {
      return minSaturation != 1 || maxSaturation != 1;
    }

    boolean hue() {
      return minHue != 0 || maxHue != 0;
    }

    /** Whether any of the four ColorJitter operations runs. */
    boolean any() {
      return brightness() || contrast() || saturation() || hue();
    }
  }

  /** The {@code normalize(...)} group: per-channel mean and divisor (RGBA), scale, and the mean image's file. */
  record Normalization(float[] mean, float[] std, float scale, @Nullable Path meanImg) {}

  /** OpenCV's interpolation codes that MXNet accepts, plus 9 (auto) and 10 (random). */
  static boolean validInterMethod(int m) {
    return (m >= 0 && m <= 4) || m == 9 || m == 10;
  }

  /**
   * These settings with every random draw and the normalisation off, for computing the mean image
   * (MXNet computes it over centre crops): a random crop size becomes its largest, interpolation 10
   * (random) becomes 1; the other settings are the groups' defaults, so the random resized crop
   * becomes the plain centre crop and colour jitter and random gray are off.
   */
  Augmentation withoutRandomness() {
    Crop c = augments.crop();
    int method = augments.interMethod() == 10 ? 1 : augments.interMethod();
    Augments fixed = new ImageRecordProvider.Augment().resize(c.resize()).pad(c.pad()).cropYStart(c.cropYStart())
        .cropXStart(c.cropXStart()).maxCropSize(c.maxCropSize()).minCropSize(c.maxCropSize())
        .fillValue(augments.fillValue()).interMethod(method).settings(channels);
    return new Augmentation(channels, height, width, fixed, new ImageRecordProvider.Normalize().settings());
  }

  /** Whether the affine step (rotation, shear, scale, aspect, size limits) runs. */
  boolean affine() {
    Affine f = augments.affine();
    return f.maxRotateAngle() > 0 || f.maxShearRatio() > 0 || f.rotate() > 0 || f.maxRandomScale() != 1f
        || f.minRandomScale() != 1f || f.maxAspectRatio() != 0f || f.maxImgSize() != 1e10f || f.minImgSize() != 0f;
  }

  /** Whether a random crop size is drawn (and the crop resized to the output size). */
  boolean cropSize() {
    return maxCropSize() != -1 || minCropSize() != -1;
  }

  /** Whether the HSL step runs. */
  boolean colour() {
    return randomH() != 0 || randomS() != 0 || randomL() != 0;
  }

  /** Whether the random resized crop replaces the crop step. */
  boolean resizedCrop() {
    return augments.resizedCrop().on();
  }

  /** Whether colour jitter or random gray runs. */
  boolean jitter() {
    return augments.jitter().any() || augments.jitter().grayProbability() > 0;
  }

  // The augmenter and pixel writer read each setting by its MXNet name; these keep them flat.

  int resize() { return augments.crop().resize(); }
  int pad() { return augments.crop().pad(); }
  boolean randCrop() { return augments.crop().randCrop(); }
  int cropYStart() { return augments.crop().cropYStart(); }
  int cropXStart() { return augments.crop().cropXStart(); }
  int maxCropSize() { return augments.crop().maxCropSize(); }
  int minCropSize() { return augments.crop().minCropSize(); }
  float maxRotateAngle() { return augments.affine().maxRotateAngle(); }
  int rotate() { return augments.affine().rotate(); }
  float maxAspectRatio() { return augments.affine().maxAspectRatio(); }
  float maxShearRatio() { return augments.affine().maxShearRatio(); }
  float maxRandomScale() { return augments.affine().maxRandomScale(); }
  float minRandomScale() { return augments.affine().minRandomScale(); }
  float maxImgSize() { return augments.affine().maxImgSize(); }
  float minImgSize() { return augments.affine().minImgSize(); }
  int randomH() { return augments.colour().randomH(); }
  int randomS() { return augments.colour().randomS(); }
  int randomL() { return augments.colour().randomL(); }
  float maxRandomContrast() { return augments.colour().maxRandomContrast(); }
  float maxRandomIllumination() { return augments.colour().maxRandomIllumination(); }
  float pcaNoise() { return augments.colour().pcaNoise(); }
  int fillValue() { return augments.fillValue(); }
  int interMethod() { return augments.interMethod(); }
  boolean mirror() { return augments.mirror(); }
  boolean randMirror() { return augments.randMirror(); }
  float[] mean() { return normalization.mean(); }
  float[] std() { return normalization.std(); }
  float scale() { return normalization.scale(); }
}
