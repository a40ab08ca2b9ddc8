package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.BORDER_CONSTANT;
import static org.bytedeco.opencv.global.opencv_core.BORDER_REPLICATE;
import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.copyMakeBorder;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2HLS;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_HLS2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_CUBIC;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_LINEAR;
import static org.bytedeco.opencv.global.opencv_imgproc.WARP_INVERSE_MAP;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;
import static org.bytedeco.opencv.global.opencv_imgproc.warpAffine;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.indexer.FloatIndexer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * MXNet's default image augmenter ({@code aug_default}) for one reader thread, in MXNet's order:
 * shorter side resized to {@code resize}; the affine step (rotation, shear, random scale and aspect
 * ratio, size limits, borders filled with {@code fillValue}); padding; the crop (a random size in
 * [minCropSize, maxCropSize] resized to the output, or the output size itself, centred, random, or
 * at cropYStart/cropXStart; or torchvision's random resized crop instead); random hue, saturation
 * and lightness in HLS space; then torchvision's colour jitter and random gray ({@link
 * ColourJitter}).
 *
 * <p>The draws of one image come in that order too, each step drawing only when it is on, so they
 * depend on the sample alone.
 *
 * <p>One difference, as shared/DESIGN.md settles: an image smaller than the output is first
 * upscaled keeping its aspect ratio (MXNet 1.x stops with "input image size smaller than input
 * shape").
 *
 * <p>Reduced decoding ({@link #plan}): when the output is a resize of a part of the image that the
 * image's size and the sample's draws alone fix, the augmenter makes those draws before the
 * decode, from the size the JPEG's header declares, and chooses how much smaller the decoder may
 * make the image; {@link #apply} then uses the planned draws on the smaller image, with the crop
 * box mapped into its coordinates. The draws and their order are the same as without it.
 *
 * <p>Every intermediate image lives in a Mat kept by this object, so steady state allocates no
 * pixel buffers. After {@link #apply}, the output is the {@code height x width} window of {@link
 * #result()} at ({@link #x()}, {@link #y()}). Not thread-safe.
 */
final class Augmenter implements AutoCloseable {
  private final Augmentation a;
  private final Mat resized = new Mat();
  private final Mat warped = new Mat();
  private final Mat padded = new Mat();
  private final Mat upscaled = new Mat();
  private final Mat cropped = new Mat();
  private final Mat hls = new Mat();
  private final Mat affine = new Mat(2, 3, CV_32F);
  private final FloatIndexer m = affine.createIndexer();
  private final Size size = new Size();
  private final Rect rect = new Rect();
  private final Scalar fill;
  private final ResizedCropBox box = new ResizedCropBox();
  private final ColourJitter jitter;
  private byte[] pixels = new byte[0];
  private final int[] resizeTo = new int[2];
  private Mat result = resized;
  private int x;
  private int y;
  /** The crop in full-image coordinates (after resize, affine and pad), as drawn: its box and whether it is square-drawn. */
  private int cropX;
  private int cropY;
  private int cropW;
  private int cropH;
  /** Set by {@link #plan}, cleared by {@link #apply}: the crop is drawn and the image is this size before reduction. */
  private boolean planned;
  private int fullRows;
  private int fullCols;
  private int scale = 1;

  Augmenter(Augmentation a) {
    this.a = a;
    this.fill = new Scalar(a.fillValue(), a.fillValue(), a.fillValue(), a.fillValue());
    this.jitter = new ColourJitter(a.augments().jitter());
  }

  /** The image whose window at ({@link #x()}, {@link #y()}) is the output. */
  Mat result() {
    return result;
  }

  int x() {
    return x;
  }

  int y() {
    return y;
  }

  /** The last crop's left column in the coordinates of the full-size image (after resize), for tests. */
  int cropX() {
    return cropX;
  }

  int cropY() {
    return cropY;
  }

  int cropWidth() {
    return cropW;
  }

  int cropHeight() {
    return cropH;
  }

  /**
   * Whether these settings allow a reduced decode at all: the one rule, here so that it is written
   * down once (docs/images.md, "Reduced decoding"). It needs a step that shrinks a part of the
   * image that the image's size and the sample's draws alone fix, with nothing before it that
   * works on the full-resolution pixels:
   *
   * <ul>
   *   <li>the affine step (rotation, shear, random scale) warps the full image, and its output size
   *       follows the input's: no;
   *   <li>padding adds borders a fixed number of full-resolution pixels wide, which the crop then
   *       takes part of: no;
   *   <li>4 channels decode with {@code IMREAD_UNCHANGED}, which has no reduced variant (and, unlike
   *       the colour flags, ignores the EXIF orientation): no;
   *   <li>nearest-neighbour interpolation ({@code interMethod} 0) picks single full-resolution
   *       pixels, which a reduced image no longer has (a mean difference of 3 to 9 grey levels on
   *       the test images), and 10 may draw it: no;
   *   <li>a resize of the shorter side ({@code resize}) shrinks the whole image, whatever comes after
   *       it: yes, by the resize's own factor;
   *   <li>else the random resized crop or the random crop size ({@code maxCropSize}), both resized
   *       to the output: yes, by the crop's factor;
   *   <li>else the plain crop takes the output window at full resolution: no.
   * </ul>
   */
  static boolean reducible(Augmentation a) {
    if (a.channels() == 4 || a.affine() || a.pad() > 0 || a.interMethod() == 0 || a.interMethod() == 10) {
      return false;
    }
    return a.resize() > 0 || a.resizedCrop() || a.cropSize();
  }

  /**
   * The largest reduction, 2, 4 or 8 (else 1), at which a part {@code partW x partH} of the image,
   * decoded at 1/d of its size, still has at least {@code outW x outH} pixels: the step that shrinks
   * it to the output never enlarges because of the reduction.
   */
  static int scaleFor(int partW, int partH, int outW, int outH) {
    for (int d = 8; d > 1; d /= 2) {
      if ((long) partW >= (long) outW * d && (long) partH >= (long) outH * d) {
        return d;
      }
    }
    return 1;
  }

  /**
   * Plans a reduced decode of an image whose full size is {@code rows x cols}: makes the draws that
   * fix the shrinking step (the crop's; none for a resize of the shorter side) from {@code r}, in
   * the order {@link #apply} makes them, and returns the reduction 1, 2, 4 or 8 to decode at. The
   * next {@link #apply} takes an image of {@code ceil(rows/d) x ceil(cols/d)} (libjpeg's reduced
   * size) and does not draw the crop again. Call only when {@link #reducible} holds.
   *
   * @throws IllegalArgumentException when the image is smaller than maxCropSize
   */
  int plan(int rows, int cols, SeededRandom r) {
    fullRows = rows;
    fullCols = cols;
    planned = true;
    if (a.resize() > 0) {
      OpenCv.shorterSide(rows, cols, a.resize(), resizeTo);
      scale = scaleFor(cols, rows, resizeTo[0], resizeTo[1]);
    } else {
      drawCrop(rows, cols, r);
      scale = scaleFor(cropW, cropH, a.width(), a.height());
    }
    return scale;
  }

  /** Forgets a plan whose image did not decode at the planned size; the caller replays the draws. */
  void unplan() {
    planned = false;
  }

  /**
   * Draws the random resized crop's box or the random-size square crop of an image of {@code rows
   * x cols} into cropX/Y/W/H.
   */
  private void drawCrop(int rows, int cols, SeededRandom r) {
    if (a.resizedCrop()) {
      box.draw(rows, cols, a.augments().resizedCrop(), r);
      cropX = box.x();
      cropY = box.y();
      cropW = box.width();
      cropH = box.height();
      return;
    }
    int max = a.maxCropSize();
    if (cols < max || rows < max) {
      throw new IllegalArgumentException("the image is " + cols + "x" + rows + " (width x height) after "
          + "resize, affine and pad, smaller than maxCropSize " + max);
    }
    int crop = r.nextInt(a.minCropSize(), max);
    int cy = rows - crop;
    int cx = cols - crop;
    if (a.randCrop()) {
      cy = r.nextInt(0, cy);
      cx = r.nextInt(0, cx);
    } else {
      cy /= 2;
      cx /= 2;
    }
    cropX = cx;
    cropY = cy;
    cropW = crop;
    cropH = crop;
  }

  /**
   * The crop of an image reduced by {@code d} resized to the output, sampled where the full
   * decode's resize samples: output pixel centre j + 1/2 lies at full-image column cropX + (j + 1/2)
   * · cropW / width, that is reduced column (cropX + (j + 1/2) · cropW / width) / d. An integer
   * box in the reduced image would move the crop by up to half a reduced pixel, which is up to half
   * an output pixel; the warp keeps the fraction. (warpAffine has no area interpolation: area is
   * linear here, on an image that the reduction has already averaged.)
   */
  private void reducedCrop(Mat res, int d, int interpolation) {
    double sx = (double) cropW / (a.width() * d);
    double sy = (double) cropH / (a.height() * d);
    m.put(0, 0, (float) sx).put(0, 1, 0f).put(0, 2, (float) (cropX / (double) d + 0.5 * sx - 0.5));
    m.put(1, 0, 0f).put(1, 1, (float) sy).put(1, 2, (float) (cropY / (double) d + 0.5 * sy - 0.5));
    int method = interpolation == INTER_AREA ? INTER_LINEAR : interpolation;
    warpAffine(res, cropped, affine, size(a.width(), a.height()), method | WARP_INVERSE_MAP, BORDER_REPLICATE, fill);
  }

  /**
   * Augments {@code src} (8-bit, 1, 3 or 4 channels) with draws from {@code r}; after {@link #plan},
   * {@code src} is the image reduced by the planned scale.
   *
   * @throws IllegalArgumentException when the image cannot give the output (smaller than a crop
   *     size, a crop start outside it)
   */
  void apply(Mat src, SeededRandom r) {
    boolean plan = planned;
    planned = false;
    int d = plan ? scale : 1;
    // The full-size image's rows and columns: the interpolation choice (interMethod 9) and the
    // resize target are those of the full decode, whatever size the decoder gave.
    int rows = plan ? fullRows : src.rows();
    int cols = plan ? fullCols : src.cols();
    Mat res = src;
    if (a.resize() > 0) {
      OpenCv.shorterSide(rows, cols, a.resize(), resizeTo);
      int nw = resizeTo[0];
      int nh = resizeTo[1];
      resize(res, resized, size(nw, nh), 0, 0, inter(cols, rows, nw, nh, r));
      res = resized;
      // The rest works on the resized image, the same with or without the reduction.
      plan = false;
      d = 1;
    }
    if (a.affine()) {
      res = affine(res, r);
    }
    if (a.pad() > 0) {
      int p = a.pad();
      copyMakeBorder(res, padded, p, p, p, p, BORDER_CONSTANT, fill);
      res = padded;
    }
    int h = a.height();
    int w = a.width();
    if (a.resizedCrop() || a.cropSize()) {
      if (!plan) {
        drawCrop(res.rows(), res.cols(), r);
      }
      if (d > 1) {
        reducedCrop(res, d, inter(cropW, cropH, w, h, r));
      } else {
        try (Mat roi = res.apply(rect.x(cropX).y(cropY).width(cropW).height(cropH))) {
          resize(roi, cropped, size(w, h), 0, 0, inter(cropW, cropH, w, h, r));
        }
      }
      res = cropped;
      x = 0;
      y = 0;
    } else {
      if (res.rows() < h || res.cols() < w) {
        // Upscale keeping the aspect ratio until both sides cover the output.
        double s = Math.max((double) h / res.rows(), (double) w / res.cols());
        int nw = Math.max(w, (int) Math.ceil(res.cols() * s));
        int nh = Math.max(h, (int) Math.ceil(res.rows() * s));
        resize(res, upscaled, size(nw, nh), 0, 0, inter(res.cols(), res.rows(), nw, nh, r));
        res = upscaled;
      }
      int cy = res.rows() - h;
      int cx = res.cols() - w;
      if (a.randCrop()) {
        cy = r.nextInt(0, cy);
        cx = r.nextInt(0, cx);
      } else {
        cy /= 2;
        cx /= 2;
      }
      if (a.cropYStart() >= 0) {
        if (a.cropYStart() > res.rows() - h) {
          throw new IllegalArgumentException("cropYStart " + a.cropYStart() + " + height " + h + " exceeds the image's "
              + res.rows() + " rows");
        }
        cy = a.cropYStart();
      }
      if (a.cropXStart() >= 0) {
        if (a.cropXStart() > res.cols() - w) {
          throw new IllegalArgumentException("cropXStart " + a.cropXStart() + " + width " + w + " exceeds the image's "
              + res.cols() + " columns");
        }
        cx = a.cropXStart();
      }
      x = cx;
      y = cy;
      cropX = cx;
      cropY = cy;
      cropW = w;
      cropH = h;
    }
    if (a.colour()) {
      res = colour(res, r);
    }
    if (a.jitter()) {
      res = jitter.apply(res, x, y, w, h, r);
      x = 0;
      y = 0;
    }
    result = res;
  }

  /** Rotation, shear, scale and aspect ratio in one warp, as MXNet composes them. */
  private Mat affine(Mat res, SeededRandom r) {
    float s = r.nextFloat() * a.maxShearRatio() * 2 - a.maxShearRatio();
    int maxAngle = (int) a.maxRotateAngle();
    int angle = r.nextInt(-maxAngle, maxAngle);
    if (a.rotate() > 0) {
      angle = a.rotate();
    }
    double ca = Math.cos(angle / 180.0 * Math.PI);
    double sa = Math.sin(angle / 180.0 * Math.PI);
    float scale = r.nextFloat() * (a.maxRandomScale() - a.minRandomScale()) + a.minRandomScale();
    float ratio = r.nextFloat() * a.maxAspectRatio() * 2 - a.maxAspectRatio() + 1;
    float hs = 2 * scale / (1 + ratio);
    float ws = ratio * hs;
    int nw = (int) Math.max(a.minImgSize(), Math.min(a.maxImgSize(), scale * res.cols()));
    int nh = (int) Math.max(a.minImgSize(), Math.min(a.maxImgSize(), scale * res.rows()));
    float m00 = (float) (hs * ca - s * sa * ws);
    float m10 = (float) (-sa * ws);
    float m01 = (float) (hs * sa + s * ca * ws);
    float m11 = (float) (ca * ws);
    float cw = m00 * res.cols() + m01 * res.rows();
    float ch = m10 * res.cols() + m11 * res.rows();
    m.put(0, 0, m00).put(0, 1, m01).put(0, 2, (nw - cw) / 2);
    m.put(1, 0, m10).put(1, 1, m11).put(1, 2, (nh - ch) / 2);
    if (nw < 1 || nh < 1) {
      throw new IllegalArgumentException("the affine step makes the image " + nw + "x" + nh + "; check minImgSize, "
          + "maxImgSize and the random scale");
    }
    warpAffine(res, warped, affine, size(nw, nh), inter(res.cols(), res.rows(), nw, nh, r), BORDER_CONSTANT, fill);
    return warped;
  }

  /** Random offsets added to H, L and S (clamped to 0..180, 0..255, 0..255), on the output window. */
  private Mat colour(Mat res, SeededRandom r) {
    int h = (int) (r.nextFloat() * a.randomH() * 2 - a.randomH());
    int s = (int) (r.nextFloat() * a.randomS() * 2 - a.randomS());
    int l = (int) (r.nextFloat() * a.randomL() * 2 - a.randomL());
    rect.x(x).y(y).width(a.width()).height(a.height());
    try (Mat roi = res.apply(rect)) {
      cvtColor(roi, hls, COLOR_BGR2HLS);
    }
    int n = a.width() * a.height() * 3;
    if (pixels.length < n) {
      pixels = new byte[n];
    }
    BytePointer data = hls.data();
    data.get(pixels, 0, n);
    int[] add = {h, l, s};
    int[] limit = {180, 255, 255};
    for (int i = 0; i < n; i += 3) {
      for (int k = 0; k < 3; k++) {
        int v = (pixels[i + k] & 0xff) + add[k];
        pixels[i + k] = (byte) Math.max(0, Math.min(limit[k], v));
      }
    }
    data.put(pixels, 0, n);
    cvtColor(hls, hls, COLOR_HLS2BGR);
    x = 0;
    y = 0;
    return hls;
  }

  private Size size(int width, int height) {
    return size.width(width).height(height);
  }

  /** MXNet's GetInterMethod: 9 picks cubic to enlarge, area to shrink, linear otherwise; 10 draws one of 0..4. */
  private int inter(int oldW, int oldH, int newW, int newH, SeededRandom r) {
    int method = a.interMethod();
    if (method == 9) {
      if (newW > oldW && newH > oldH) {
        return INTER_CUBIC;
      } else if (newW < oldW && newH < oldH) {
        return INTER_AREA;
      }
      return INTER_LINEAR;
    }
    if (method == 10) {
      return r.nextInt(0, 4);
    }
    return method;
  }

  @Override
  public void close() {
    m.close();
    for (Mat mat : new Mat[] {resized, warped, padded, upscaled, cropped, hls, affine}) {
      mat.close();
    }
    size.close();
    rect.close();
    fill.close();
    jitter.close();
  }
}
