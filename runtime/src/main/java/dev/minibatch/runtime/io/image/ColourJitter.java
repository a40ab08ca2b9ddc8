package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.CV_8U;
import static org.bytedeco.opencv.global.opencv_core.addWeighted;
import static org.bytedeco.opencv.global.opencv_core.mean;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2GRAY;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2HSV;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_HSV2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;

import org.bytedeco.javacpp.indexer.FloatIndexer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;

/**
 * torchvision's ColorJitter and RandomGrayscale on the augmenter's 8-bit BGR output window, for one
 * reader thread. ColorJitter draws a random order of its four operations, then a factor for each
 * one that is on, and applies them in that order, each rounding to 8 bits:
 *
 * <ul>
 *   <li>brightness b: {@code v · b};
 *   <li>contrast c: {@code v · c + m · (1 - c)}, m the image's mean gray (0.299 R + 0.587 G + 0.114
 *       B, from the channel means);
 *   <li>saturation s: {@code v · s + g · (1 - s)}, g the pixel's gray (the same weights, 8-bit);
 *   <li>hue h: the HSV hue turned by h of the full circle (in float, from the 8-bit pixel).
 * </ul>
 *
 * Results are rounded to the nearest level and clamped to 0..255 (torchvision truncates towards
 * zero). RandomGrayscale then replaces the image by its gray in all three channels with its
 * probability. Every image lives in a Mat kept here. Not thread-safe.
 */
final class ColourJitter implements AutoCloseable {
  /** ITU-R BT.601 luma weights, OpenCV's and torchvision's grayscale. */
  private static final double RED = 0.299;
  private static final double GREEN = 0.587;
  private static final double BLUE = 0.114;

  private final Augmentation.Jitter j;
  private final Mat image = new Mat();
  private final Mat gray = new Mat();
  private final Mat gray3 = new Mat();
  private final Mat floats = new Mat();
  private final Mat hsv = new Mat();
  private final Rect rect = new Rect();
  /** The operations' order for the current image: 0 brightness, 1 contrast, 2 saturation, 3 hue. */
  private final int[] order = new int[4];

  ColourJitter(Augmentation.Jitter j) {
    this.j = j;
  }

  /**
   * Jitters the {@code width x height} window of {@code src} at ({@code x}, {@code y}) with draws
   * from {@code r}: the order (three draws, a Fisher–Yates shuffle), then the factors of brightness,
   * contrast, saturation and hue that are on, then one draw for random gray when it is on.
   *
   * @return the result, a Mat of this object's of exactly the window's size
   */
  Mat apply(Mat src, int x, int y, int width, int height, SeededRandom r) {
    rect.x(x).y(y).width(width).height(height);
    try (Mat roi = src.apply(rect)) {
      roi.copyTo(image);
    }
    if (j.any()) {
      for (int k = 0; k < 4; k++) {
        order[k] = k;
      }
      for (int k = 3; k > 0; k--) {
        int other = r.nextInt(0, k);
        int t = order[k];
        order[k] = order[other];
        order[other] = t;
      }
      double b = j.brightness() ? uniform(j.minBrightness(), j.maxBrightness(), r) : 1;
      double c = j.contrast() ? uniform(j.minContrast(), j.maxContrast(), r) : 1;
      double s = j.saturation() ? uniform(j.minSaturation(), j.maxSaturation(), r) : 1;
      double h = j.hue() ? uniform(j.minHue(), j.maxHue(), r) : 0;
      for (int op : order) {
        switch (op) {
          case 0 -> {
            if (j.brightness()) {
              image.convertTo(image, -1, b, 0);
            }
          }
          case 1 -> {
            if (j.contrast()) {
              contrast(c);
            }
          }
          case 2 -> {
            if (j.saturation()) {
              saturation(s);
            }
          }
          default -> {
            if (j.hue()) {
              hue(h);
            }
          }
        }
      }
    }
    if (j.grayProbability() > 0 && r.nextFloat() < j.grayProbability()) {
      cvtColor(image, gray, COLOR_BGR2GRAY);
      cvtColor(gray, image, COLOR_GRAY2BGR);
    }
    return image;
  }

  private static double uniform(float lo, float hi, SeededRandom r) {
    return lo + ((double) hi - lo) * r.nextFloat();
  }

  /** Blends with the mean gray; the mean of the weighted sum is the weighted sum of the channel means. */
  private void contrast(double c) {
    double m;
    try (Scalar means = mean(image)) {
      m = BLUE * means.get(0) + GREEN * means.get(1) + RED * means.get(2);
    }
    image.convertTo(image, -1, c, (1 - c) * m);
  }

  private void saturation(double s) {
    cvtColor(image, gray, COLOR_BGR2GRAY);
    cvtColor(gray, gray3, COLOR_GRAY2BGR);
    addWeighted(image, s, gray3, 1 - s, 0, image);
  }

  /**
   * Turns the hue in float HSV (H in degrees). The shift is taken into [0, 360) and the sum wrapped
   * here: OpenCV's HSV to BGR wraps hues of 360 and above but not negative ones.
   */
  private void hue(double h) {
    double turn = h - Math.floor(h);
    float shift = (float) (turn * 360);
    image.convertTo(floats, CV_32F);
    cvtColor(floats, hsv, COLOR_BGR2HSV);
    int rows = hsv.rows();
    int cols = hsv.cols();
    try (FloatIndexer ix = hsv.createIndexer()) {
      for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++) {
          float v = ix.get(y, x, 0) + shift;
          ix.put(y, x, 0, v >= 360 ? v - 360 : v);
        }
      }
    }
    cvtColor(hsv, floats, COLOR_HSV2BGR);
    floats.convertTo(image, CV_8U);
  }

  @Override
  public void close() {
    for (Mat m : new Mat[] {image, gray, gray3, floats, hsv}) {
      m.close();
    }
    rect.close();
  }
}
