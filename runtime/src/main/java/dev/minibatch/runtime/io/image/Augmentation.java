package dev.minibatch.runtime.io.image;

/**
 * The augmentation and normalisation settings of MXNet's default augmenter and normaliser, named as
 * on {@link ImageRecordProvider.Builder}; defaults are MXNet's. Immutable.
 */
record Augmentation(
    int channels,
    int height,
    int width,
    int resize,
    boolean randCrop,
    int cropYStart,
    int cropXStart,
    float maxRotateAngle,
    int rotate,
    float maxAspectRatio,
    float maxShearRatio,
    int maxCropSize,
    int minCropSize,
    float maxRandomScale,
    float minRandomScale,
    float maxImgSize,
    float minImgSize,
    int randomH,
    int randomS,
    int randomL,
    int fillValue,
    int interMethod,
    int pad,
    boolean mirror,
    boolean randMirror,
    float[] mean,
    float[] std,
    float scale,
    float maxRandomContrast,
    float maxRandomIllumination,
    float pcaNoise) {

  /** OpenCV's interpolation codes that MXNet accepts, plus 9 (auto) and 10 (random). */
  static boolean validInterMethod(int m) {
    return (m >= 0 && m <= 4) || m == 9 || m == 10;
  }

  /** Whether the affine step (rotation, shear, scale, aspect, size limits) runs. */
  boolean affine() {
    return maxRotateAngle > 0 || maxShearRatio > 0 || rotate > 0 || maxRandomScale != 1f || minRandomScale != 1f
        || maxAspectRatio != 0f || maxImgSize != 1e10f || minImgSize != 0f;
  }

  /** Whether a random crop size is drawn (and the crop resized to the output size). */
  boolean cropSize() {
    return maxCropSize != -1 || minCropSize != -1;
  }

  /** Whether the HSL step runs. */
  boolean colour() {
    return randomH != 0 || randomS != 0 || randomL != 0;
  }
}
