package dev.minibatch.runtime.io.image;


/**
 * The box of torchvision's RandomResizedCrop, drawn for one image: up to 10 attempts, each drawing
 * an area fraction uniformly in [minArea, maxArea] and a width/height ratio uniformly in log space
 * over [minRatio, maxRatio], giving width round(sqrt(area · ratio)) and height round(sqrt(area /
 * ratio)) (round half to even, as Python's {@code round}); the first that fits inside the image
 * (both sides at least 1) is placed at a uniform position. When none fits, the centre crop of the
 * whole image with its ratio clamped into the range. Not thread-safe: the box lives in this object.
 */
final class ResizedCropBox {
  private static final int ATTEMPTS = 10;

  private int x;
  private int y;
  private int width;
  private int height;

  /**
   * Draws the box for an image of {@code rows x cols}: per attempt the area fraction, then the
   * ratio, then (for the attempt that fits) the row and the column; nothing for the fallback.
   */
  void draw(int rows, int cols, Augmentation.ResizedCrop s, SeededRandom r) {
    double area = (double) rows * cols;
    double logMin = Math.log(s.minRatio());
    double logMax = Math.log(s.maxRatio());
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      double target = area * uniform(s.minArea(), s.maxArea(), r);
      double ratio = Math.exp(uniform(logMin, logMax, r));
      int w = (int) Math.rint(Math.sqrt(target * ratio));
      int h = (int) Math.rint(Math.sqrt(target / ratio));
      if (w > 0 && w <= cols && h > 0 && h <= rows) {
        y = r.nextInt(0, rows - h);
        x = r.nextInt(0, cols - w);
        width = w;
        height = h;
        return;
      }
    }
    double ratio = (double) cols / rows;
    if (ratio < s.minRatio()) {
      width = cols;
      height = Math.max(1, Math.min(rows, (int) Math.rint(cols / (double) s.minRatio())));
    } else if (ratio > s.maxRatio()) {
      height = rows;
      width = Math.max(1, Math.min(cols, (int) Math.rint(rows * (double) s.maxRatio())));
    } else {
      width = cols;
      height = rows;
    }
    y = (rows - height) / 2;
    x = (cols - width) / 2;
  }

  private static double uniform(double lo, double hi, SeededRandom r) {
    return lo + (hi - lo) * r.nextFloat();
  }

  int x() {
    return x;
  }

  int y() {
    return y;
  }

  int width() {
    return width;
  }

  int height() {
    return height;
  }
}
