package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.AugmentedImages.augment;
import static dev.minibatch.runtime.io.image.AugmentedImages.settings;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2HLS;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_HLS2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.image.AugmentedImages.Output;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each augmentation of MXNet's default augmenter and normaliser against answers worked out by hand
 * from MXNet's formulas, on small synthetic images: every test fails if its operation is skipped or
 * changed. Random operations run with every other draw pinned (bounds 0) over many sample indices
 * of one seed, so the tests are deterministic, and check both that every draw lies within the
 * bounds and that the draws reach towards both ends.
 *
 * <p>The geometric steps run the augmenter itself (its whole result image shows the size the affine
 * step made); the normaliser's steps (mirror, mean and std, contrast, illumination, PCA noise) run
 * the provider end to end on PNG records. Geometric tests use nearest-neighbour interpolation
 * ({@code interMethod(0)}) where the sampled positions are whole pixels, so values are exact.
 */
class ImageAugmentationTest {
  private static final long SEED = 42;
  private static final int FILL = 7;

  @TempDir Path dir;

  // ---- affine step: rotation ----

  @Test
  void rotate90TurnsTheImageCounterClockwiseAboutItsCentre() {
    int n = 4;
    TestImages.Pixels in = (y, x, c) -> 20 + 10 * y + x;
    Output out = augment(settings(1, 1, 1, a -> a.rotate(90).fillValue(FILL).interMethod(0)), in, n, n, 1, SEED, 0);
    assertEquals(n, out.rows());
    assertEquals(n, out.cols());
    // MXNet builds the matrix itself (the form of OpenCV's getRotationMatrix2D, positive angles
    // counter-clockwise): for angle t, scale 1, no shear and no aspect change, input (x, y) goes to
    //   x' = x cos t + y sin t + tx,   y' = -x sin t + y cos t + ty,
    // with tx = (W - W cos t - H sin t) / 2 and ty = (H + W sin t - H cos t) / 2, which turn the image
    // about (W / 2, H / 2) in pixel indices, half a pixel off the middle of the pixels ((W - 1) / 2).
    // For t = 90 and W = H = n: x' = y, y' = n - x. So output (row r, column c) is input (row c,
    // column n - r): the quarter turn lands one row low, and row 0, reading column n, is fill.
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < n; c++) {
        int expected = r == 0 ? FILL : in.value(c, n - r, 0);
        assertEquals(expected, out.image()[r][c][0], "output row " + r + ", column " + c);
      }
    }
    // Counter-clockwise on screen (rows grow downwards): the input's top row, read right to left,
    // runs down the output's left column. Clockwise would put it down the right column.
    for (int r = 1; r < n; r++) {
      assertEquals(in.value(0, n - r, 0), out.image()[r][0][0]);
    }
  }

  @Test
  void maxRotateAngleTurnsByAtMostTheBoundEitherWay() {
    // A horizontal line through the centre of a 101 x 101 image; after a turn by t degrees its
    // slope is -tan t (counter-clockwise lifts the right end). Measured between columns 10 and 90,
    // one pixel of rounding is at most atan(1 / 80), under 1 degree.
    TestImages.Pixels line = (y, x, c) -> y == 50 ? 200 : 0;
    assertEquals(20, turn(settings(1, 1, 1, a -> a.rotate(20).fillValue(0).interMethod(0)), line, 0), 1,
        "rotate(20) lifts the right end");
    Augmentation a = settings(1, 1, 1, o -> o.maxRotateAngle(20).fillValue(0).interMethod(0));
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (int i = 0; i < 200; i++) {
      double t = turn(a, line, i);
      assertTrue(Math.abs(t) <= 21, "sample " + i + " turned by " + t + " degrees, bound 20");
      min = Math.min(min, t);
      max = Math.max(max, t);
    }
    assertTrue(min < -17 && max > 17, "200 draws in [-20, 20] only reached [" + min + ", " + max + "]");
  }

  /** The angle in degrees by which the augmenter turned the horizontal line of {@code line}. */
  private static double turn(Augmentation a, TestImages.Pixels line, int index) {
    Output out = augment(a, line, 101, 101, 1, SEED, index);
    double left = litRow(out, 10);
    double right = litRow(out, 90);
    return Math.toDegrees(Math.atan((left - right) / 80));
  }

  private static double litRow(Output out, int column) {
    double sum = 0;
    int count = 0;
    for (int r = 0; r < out.rows(); r++) {
      if (out.image()[r][column][0] != 0) {
        sum += r;
        count++;
      }
    }
    assertTrue(count > 0, "no lit pixel in column " + column);
    return sum / count;
  }

  // ---- affine step: shear ----

  @Test
  void shearMovesRowsSidewaysInProportionToTheirHeight() {
    // MXNet's shear is (x, y) -> (x + m y, y), m in [-v, v], centred: row y moves m (y - H / 2)
    // pixels sideways and stays where it is. Channel 0 holds a vertical line at column 20 of a
    // 41 x 41 image, channel 1 a horizontal line at row 10.
    int n = 41;
    float v = 0.4f;
    TestImages.Pixels lines = (y, x, c) -> c == 0 ? (x == 20 ? 200 : 0) : c == 1 ? (y == 10 ? 200 : 0) : 0;
    Augmentation a = settings(3, 1, 1, o -> o.maxShearRatio(v).fillValue(0).interMethod(0));
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (int i = 0; i < 200; i++) {
      Output out = augment(a, lines, n, n, 3, SEED, i);
      int[] column = new int[n];
      for (int y = 0; y < n; y++) {
        int[] lit = lit(out.image()[y], 0);
        assertEquals(1, lit.length, "sample " + i + ": row " + y + " of the vertical line");
        column[y] = lit[0];
        // Rows do not move: the horizontal line is still (only) in row 10.
        assertEquals(y == 10, lit(out.image()[y], 1).length > 0, "sample " + i + ": row " + y + " of the horizontal line");
      }
      // The line's slope is m; each end is rounded to a whole pixel, so m is known to 1/40.
      double m = (column[n - 1] - column[0]) / (double) (n - 1);
      assertTrue(Math.abs(m) <= v + 1.0 / 40, "sample " + i + ": shear " + m + ", bound " + v);
      for (int y = 0; y < n; y++) {
        assertEquals(20 + m * (y - n / 2.0), column[y], 1.0, "sample " + i + ": row " + y + " is not sheared by " + m);
      }
      min = Math.min(min, m);
      max = Math.max(max, m);
    }
    assertTrue(min < -0.3 && max > 0.3, "200 draws in [-0.4, 0.4] only reached [" + min + ", " + max + "]");
  }

  /** The columns of {@code row} whose channel {@code c} is not 0. */
  private static int[] lit(int[][] row, int c) {
    return IntStream.range(0, row.length).filter(x -> row[x][c] != 0).toArray();
  }

  // ---- affine step: aspect ratio ----

  @Test
  void aspectRatioShrinksOneSideAsItStretchesTheOther() {
    // MXNet draws r in [1 - v, 1 + v] and scales x (the width) by 2 / (1 + r) and y (the height) by
    // 2r / (1 + r), about the centre, on a canvas of the same size. The two factors add up to 2:
    // one side grows as the other shrinks, and width / height changes by 1 / r. With v = 0.5 the
    // width factor lies in [2 / 2.5, 2 / 1.5] = [0.8, 1.33] and the height factor in [0.67, 1.2].
    // A 50 x 50 square centred in a 100 x 100 image (on fill 0) shows both factors.
    TestImages.Pixels square = (y, x, c) -> y >= 25 && y < 75 && x >= 25 && x < 75 ? 200 : 0;
    Augmentation a = settings(1, 1, 1, o -> o.maxAspectRatio(0.5f).fillValue(0).interMethod(0));
    double minH = Double.MAX_VALUE;
    double maxH = 0;
    for (int i = 0; i < 200; i++) {
      Output out = augment(a, square, 100, 100, 1, SEED, i);
      assertEquals(100, out.rows(), "the canvas keeps its size");
      assertEquals(100, out.cols(), "the canvas keeps its size");
      double w = litAcross(out) / 50.0;
      double h = litDown(out) / 50.0;
      // Nearest neighbour rounds each edge to a whole pixel: each factor is known to 2 / 50.
      double tol = 2 / 50.0;
      assertEquals(2, w + h, 2 * tol, "sample " + i + ": width factor " + w + " and height factor " + h);
      assertTrue(w >= 0.8 - tol && w <= 4 / 3.0 + tol, "sample " + i + ": width factor " + w);
      assertTrue(h >= 2 / 3.0 - tol && h <= 1.2 + tol, "sample " + i + ": height factor " + h);
      minH = Math.min(minH, h);
      maxH = Math.max(maxH, h);
    }
    assertTrue(minH < 0.72 && maxH > 1.15, "200 draws only reached height factors [" + minH + ", " + maxH + "]");
  }

  private static int litAcross(Output out) {
    return lit(out.image()[out.rows() / 2], 0).length;
  }

  private static int litDown(Output out) {
    int count = 0;
    for (int[][] row : out.image()) {
      count += row[out.cols() / 2][0] != 0 ? 1 : 0;
    }
    return count;
  }

  // ---- affine step: random scale ----

  @Test
  void aFixedRandomScaleResizesImageAndCanvas() {
    // min = max = 0.5 pins the draw: an 8 x 6 image becomes 4 x 3, and output (i, j) is input
    // (2i, 2j) (the translation (4 - 0.5 * 8) / 2 is 0).
    TestImages.Pixels in = (y, x, c) -> 20 + 10 * y + x;
    Output out = augment(settings(1, 1, 1, a -> a.minRandomScale(0.5f).maxRandomScale(0.5f).interMethod(0)), in,
        6, 8, 1, SEED, 0);
    assertEquals(3, out.rows());
    assertEquals(4, out.cols());
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 4; j++) {
        assertEquals(in.value(2 * i, 2 * j, 0), out.image()[i][j][0], "output row " + i + ", column " + j);
      }
    }
  }

  @Test
  void randomScaleIsDrawnBetweenMinAndMax() {
    // Scale s in [0.5, 1.5]: a 100 x 60 image becomes floor(100 s) x floor(60 s), its content
    // scaled by the same s (a centred 50 x 30 rectangle stays half the canvas wide).
    TestImages.Pixels rect = (y, x, c) -> y >= 15 && y < 45 && x >= 25 && x < 75 ? 200 : 0;
    Augmentation a = settings(1, 1, 1, o -> o.minRandomScale(0.5f).maxRandomScale(1.5f).fillValue(0).interMethod(0));
    int minW = Integer.MAX_VALUE;
    int maxW = 0;
    for (int i = 0; i < 200; i++) {
      Output out = augment(a, rect, 60, 100, 1, SEED, i);
      int w = out.cols();
      int h = out.rows();
      assertTrue(w >= 50 && w <= 150, "sample " + i + ": width " + w);
      // w = floor(100 s) puts s in [w / 100, (w + 1) / 100); one more pixel for float rounding.
      assertTrue(h >= Math.floor(0.6 * w) - 1 && h <= Math.floor(0.6 * (w + 1)) + 1, "sample " + i + ": " + w + " x " + h);
      assertEquals(w / 2.0, litAcross(out), 2, "sample " + i + ": the content is not scaled with the canvas");
      minW = Math.min(minW, w);
      maxW = Math.max(maxW, w);
    }
    assertTrue(minW < 60 && maxW > 140, "200 draws only reached widths [" + minW + ", " + maxW + "]");
  }

  // ---- affine step: size limits ----

  @Test
  void maxImgSizeKeepsTheCentreOfTheImage() {
    // An 8 x 6 image limited to 4 x 4: the canvas is 4 x 4 and the unscaled image is centred on
    // it (translation ((4 - 8) / 2, (4 - 6) / 2) = (-2, -1)): output (i, j) is input (i + 1, j + 2).
    TestImages.Pixels in = (y, x, c) -> 20 + 10 * y + x;
    Output out = augment(settings(1, 1, 1, a -> a.maxImgSize(4).interMethod(0)), in, 6, 8, 1, SEED, 0);
    assertEquals(4, out.rows());
    assertEquals(4, out.cols());
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        assertEquals(in.value(i + 1, j + 2, 0), out.image()[i][j][0], "output row " + i + ", column " + j);
      }
    }
  }

  @Test
  void minImgSizeCentresTheImageOnALargerCanvasOfFill() {
    // An 8 x 6 image on a canvas of at least 10 x 10: translation ((10 - 8) / 2, (10 - 6) / 2) =
    // (1, 2), so output (i, j) is input (i - 2, j - 1), and fill around it.
    TestImages.Pixels in = (y, x, c) -> 20 + 10 * y + x;
    Output out = augment(settings(1, 1, 1, a -> a.minImgSize(10).fillValue(FILL).interMethod(0)), in, 6, 8, 1,
        SEED, 0);
    assertEquals(10, out.rows());
    assertEquals(10, out.cols());
    for (int i = 0; i < 10; i++) {
      for (int j = 0; j < 10; j++) {
        boolean inside = i >= 2 && i < 8 && j >= 1 && j < 9;
        assertEquals(inside ? in.value(i - 2, j - 1, 0) : FILL, out.image()[i][j][0], "output row " + i + ", column " + j);
      }
    }
  }

  // ---- crop ----

  /** Channel 0 tells the column and channel 1 the row of each pixel, in steps of 10. */
  private static final TestImages.Pixels WHERE = (y, x, c) -> c == 0 ? 10 * x : c == 1 ? 10 * y : 0;

  @Test
  void aFixedCropSizeIsTheCentreSquareResizedToTheOutput() {
    // min = max = 10 on a 20 x 20 image: the square at ((20 - 10) / 2, (20 - 10) / 2) = (5, 5),
    // doubled to the 20 x 20 output; OpenCV's nearest neighbour reads input column floor(j / 2).
    Augmentation a = settings(3, 20, 20, o -> o.minCropSize(10).maxCropSize(10).interMethod(0));
    Output out = augment(a, WHERE, 20, 20, 3, SEED, 0);
    int[][][] w = out.window(20, 20);
    for (int i = 0; i < 20; i++) {
      for (int j = 0; j < 20; j++) {
        assertEquals(10 * (5 + j / 2), w[i][j][0], "output row " + i + ", column " + j);
        assertEquals(10 * (5 + i / 2), w[i][j][1], "output row " + i + ", column " + j);
      }
    }
  }

  /** The crop square a 40 x 40 output of {@link #WHERE} came from: {x, y, side}. */
  private static int[] cropOf(Output out) {
    int[][][] w = out.window(40, 40);
    // Nearest neighbour from side k to 40 reads input offset floor(j k / 40): 0 at j = 0, k - 1 at j = 39.
    int x = w[0][0][0] / 10;
    int y = w[0][0][1] / 10;
    int side = w[0][39][0] / 10 - x + 1;
    assertEquals(side, w[39][0][1] / 10 - y + 1, "the crop is square");
    return new int[] {x, y, side};
  }

  @Test
  void cropSizeIsDrawnFromMinToMaxInclusiveAndCentred() {
    Augmentation a = settings(3, 40, 40, o -> o.minCropSize(8).maxCropSize(14).interMethod(0));
    TreeSet<Integer> sides = new TreeSet<>();
    for (int i = 0; i < 300; i++) {
      int[] crop = cropOf(augment(a, WHERE, 20, 20, 3, SEED, i));
      int k = crop[2];
      assertTrue(k >= 8 && k <= 14, "sample " + i + ": crop side " + k);
      assertEquals((20 - k) / 2, crop[0], "sample " + i + ": centred column");
      assertEquals((20 - k) / 2, crop[1], "sample " + i + ": centred row");
      sides.add(k);
    }
    assertEquals(new TreeSet<>(List.of(8, 9, 10, 11, 12, 13, 14)), sides, "every side in [8, 14] is drawn");
  }

  @Test
  void randCropPlacesTheCropSquareAnywhereInsideTheImage() {
    // A side-8 square in a 20 x 20 image starts at x, y in [0, 12], every offset reachable.
    Augmentation a = settings(3, 40, 40, o -> o.minCropSize(8).maxCropSize(8).randCrop(true).interMethod(0));
    TreeSet<Integer> xs = new TreeSet<>();
    TreeSet<Integer> ys = new TreeSet<>();
    for (int i = 0; i < 400; i++) {
      int[] crop = cropOf(augment(a, WHERE, 20, 20, 3, SEED, i));
      assertEquals(8, crop[2]);
      xs.add(crop[0]);
      ys.add(crop[1]);
    }
    TreeSet<Integer> all = new TreeSet<>();
    IntStream.rangeClosed(0, 12).forEach(all::add);
    assertEquals(all, xs, "crop columns");
    assertEquals(all, ys, "crop rows");
  }

  @Test
  void randCropPlacesTheOutputWindowAnywhereInsideTheImage() {
    // Without a crop size the window is the output size: 6 x 4 in a 20 x 10 image starts at
    // x in [0, 14], y in [0, 6], and the window holds the image's pixels there.
    Augmentation a = settings(3, 4, 6, o -> o.randCrop(true));
    TreeSet<Integer> xs = new TreeSet<>();
    TreeSet<Integer> ys = new TreeSet<>();
    for (int i = 0; i < 400; i++) {
      Output out = augment(a, WHERE, 10, 20, 3, SEED, i);
      int[][][] w = out.window(4, 6);
      xs.add(w[0][0][0] / 10);
      ys.add(w[0][0][1] / 10);
      assertEquals(out.x(), w[0][0][0] / 10);
      assertEquals(out.y(), w[0][0][1] / 10);
    }
    assertEquals(15, xs.size(), "columns " + xs);
    assertEquals(0, xs.first());
    assertEquals(14, xs.last());
    assertEquals(7, ys.size(), "rows " + ys);
    assertEquals(0, ys.first());
    assertEquals(6, ys.last());
  }

  // ---- pad ----

  @Test
  void padSurroundsTheImageWithFillValue() {
    // pad(2) around a 4 x 4 image, output 8 x 8: the centre crop is the whole padded image.
    TestImages.Pixels in = (y, x, c) -> 50 + 40 * c + 4 * y + x;
    Path rec = AugmentedImages.copies(dir.resolve("pad.rec"), 1, 4, 4, 3, in);
    try (ImageRecordProvider p = provider(rec, 1, 3, 8, 8, a -> a.pad(2).fillValue(FILL), n -> n)) {
      float[] row = AugmentedImages.rows(p).get(0);
      for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 8; i++) {
          for (int j = 0; j < 8; j++) {
            boolean border = i < 2 || i >= 6 || j < 2 || j >= 6;
            // Output channel k is RGB: OpenCV channel 2 - k.
            float expected = border ? FILL : in.value(i - 2, j - 2, 2 - k);
            assertEquals(expected, row[k * 64 + i * 8 + j], "channel " + k + ", row " + i + ", column " + j);
          }
        }
      }
    }
  }

  // ---- normaliser: mirror, mean and std ----

  @Test
  void randMirrorFlipsAboutHalfTheImagesExactly() {
    int n = 400;
    TestImages.Pixels in = (y, x, c) -> 10 + 60 * y + 20 * x + c;
    Path rec = AugmentedImages.copies(dir.resolve("mirror.rec"), n, 2, 3, 3, in);
    float[] plain = new float[18];
    float[] flipped = new float[18];
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
          plain[k * 6 + i * 3 + j] = in.value(i, j, 2 - k);
          flipped[k * 6 + i * 3 + j] = in.value(i, 2 - j, 2 - k);
        }
      }
    }
    int mirrored = 0;
    try (ImageRecordProvider p = provider(rec, n, 3, 2, 3, a -> a.randMirror(true), o -> o)) {
      List<float[]> rows = AugmentedImages.rows(p);
      assertEquals(n, rows.size());
      for (int r = 0; r < n; r++) {
        float[] row = rows.get(r);
        if (Arrays.equals(row, flipped)) {
          mirrored++;
        } else {
          assertArrayEquals(plain, row, "row " + r + " is neither the image nor its mirror image");
        }
      }
    }
    // Binomial(400, 1/2): mean 200, standard deviation 10; four of them either way.
    assertTrue(mirrored >= 160 && mirrored <= 240, mirrored + " of " + n + " mirrored");
  }

  @Test
  void meanAndStdNormaliseEachChannelExactly() {
    // (pixel - mean[c]) / std[c] per RGB channel; std powers of two keep float arithmetic exact.
    TestImages.Pixels in = (y, x, c) -> 100 + 50 * c + 3 * y + x;
    float[] mean = {10, 20, 30};
    float[] std = {2, 4, 0.5f};
    Path rec = AugmentedImages.copies(dir.resolve("norm.rec"), 1, 2, 2, 3, in);
    for (boolean last : new boolean[] {false, true}) {
      try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(1).dataShape(3, 2, 2)
          .channelsLast(last).normalize(o -> o.meanRgb(10, 20, 30).stdRgb(2, 4, 0.5f)).build()) {
        float[] row = AugmentedImages.rows(p).get(0);
        for (int k = 0; k < 3; k++) {
          for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) {
              float expected = (in.value(i, j, 2 - k) - mean[k]) / std[k];
              int at = last ? (i * 2 + j) * 3 + k : k * 4 + i * 2 + j;
              assertEquals(expected, row[at], (last ? "NHWC" : "NCHW") + " channel " + k + " at " + i + ", " + j);
            }
          }
        }
      }
    }
  }

  // ---- colour: HLS jitter ----

  /** Eight colours of mid lightness and saturation with hues 40..145 (OpenCV's 0..180): room to move. */
  private static final int[][] HLS_COLOURS = {
      {40, 110, 120}, {55, 130, 150}, {70, 120, 100}, {85, 140, 140},
      {100, 115, 130}, {115, 125, 110}, {130, 135, 160}, {145, 120, 125}};

  /** The colours above as a 2 x 4 BGR image. */
  private static int[][][] hlsTestImage() {
    try (Mat hls = TestImages.mat(2, 4, 3, (y, x, c) -> HLS_COLOURS[y * 4 + x][c]); Mat bgr = new Mat()) {
      cvtColor(hls, bgr, COLOR_HLS2BGR);
      return AugmentedImages.pixels(bgr);
    }
  }

  /** OpenCV's 8-bit HLS of a BGR pixel array. */
  private static int[][][] toHls(int[][][] bgr) {
    try (Mat m = TestImages.mat(bgr.length, bgr[0].length, 3, (y, x, c) -> bgr[y][x][c]); Mat hls = new Mat()) {
      cvtColor(m, hls, COLOR_BGR2HLS);
      return AugmentedImages.pixels(hls);
    }
  }

  /**
   * Jitters one HLS channel ({@code moved}: 0 hue, 1 lightness, 2 saturation) by up to {@code v} and
   * checks, over 200 samples, that every pixel's channel moved by the same draw d with |d| <= v,
   * that the other two channels did not move, and that d reaches towards both ends. An 8-bit HLS
   * round trip is lossy, so "the same" and "did not move" allow {@code tol} levels.
   */
  private static void checkHlsJitter(int moved, int v, int tol, Consumer<ImageRecordProvider.Augment> option) {
    int[][][] bgr = hlsTestImage();
    int[][][] before = toHls(bgr);
    Augmentation a = settings(3, 2, 4, option);
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (int i = 0; i < 200; i++) {
      Output out = augment(a, (y, x, c) -> bgr[y][x][c], 2, 4, 3, SEED, i);
      int[][][] after = toHls(out.window(2, 4));
      int d = after[0][0][moved] - before[0][0][moved];
      for (int y = 0; y < 2; y++) {
        for (int x = 0; x < 4; x++) {
          for (int c = 0; c < 3; c++) {
            int delta = after[y][x][c] - before[y][x][c];
            String where = "sample " + i + ", pixel " + y + ", " + x + ", HLS channel " + c;
            assertEquals(c == moved ? d : 0, delta, tol, where);
          }
        }
      }
      assertTrue(Math.abs(d) <= v + tol, "sample " + i + ": moved by " + d + ", bound " + v);
      min = Math.min(min, d);
      max = Math.max(max, d);
    }
    assertTrue(min < -(v * 3) / 4 && max > (v * 3) / 4, "200 draws in [-" + v + ", " + v + "] only reached [" + min
        + ", " + max + "]");
  }

  @Test
  void randomHMovesOnlyTheHue() {
    checkHlsJitter(0, 20, 2, a -> a.randomH(20));
  }

  @Test
  void randomLMovesOnlyTheLightness() {
    checkHlsJitter(1, 40, 2, a -> a.randomL(40));
  }

  @Test
  void randomSMovesOnlyTheSaturation() {
    checkHlsJitter(2, 40, 2, a -> a.randomS(40));
  }

  // ---- normaliser: contrast, illumination, PCA noise ----

  /** Gray levels of a 2 x 2 test image (the same in every channel): one equals the mean below. */
  private static final int[] LEVELS = {100, 200, 40, 160};

  private static final TestImages.Pixels GRAY_LEVELS = (y, x, c) -> LEVELS[y * 2 + x];

  @Test
  void contrastScalesTheDistanceFromTheMean() {
    // MXNet 1.x: (pixel - mean) * k * scale / std with k in [1 - v, 1 + v]. With mean 100 and std
    // 2 the pixels give 0, 50k, -30k and 30k in every channel: the level equal to the mean stays 0.
    int n = 200;
    Path rec = AugmentedImages.copies(dir.resolve("contrast.rec"), n, 2, 2, 3, GRAY_LEVELS);
    double min = Double.MAX_VALUE;
    double max = 0;
    try (ImageRecordProvider p = provider(rec, n, 3, 2, 2, a -> a.maxRandomContrast(0.3f),
        o -> o.meanRgb(100, 100, 100).stdRgb(2, 2, 2))) {
      List<float[]> rows = AugmentedImages.rows(p);
      for (int r = 0; r < n; r++) {
        float[] row = rows.get(r);
        double k = row[1] / 50.0;
        for (int i = 0; i < 12; i++) {
          assertEquals((LEVELS[i % 4] - 100) / 2.0 * k, row[i], 1e-4, "row " + r + ", value " + i);
        }
        assertTrue(k >= 0.7 && k <= 1.3, "row " + r + ": contrast " + k);
        min = Math.min(min, k);
        max = Math.max(max, k);
      }
    }
    assertTrue(min < 0.75 && max > 1.25, "200 draws in [0.7, 1.3] only reached [" + min + ", " + max + "]");
  }

  @Test
  void illuminationAddsOneOffsetScaledByScaleOverStd() {
    // MXNet 1.x: pixel * scale / std + i * scale / std with i in [-v, v]: with scale 0.5 and std 2,
    // pixel / 4 + i / 4, the same i at every pixel and channel.
    int n = 200;
    Path rec = AugmentedImages.copies(dir.resolve("illumination.rec"), n, 2, 2, 3, GRAY_LEVELS);
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    try (ImageRecordProvider p = provider(rec, n, 3, 2, 2, a -> a.maxRandomIllumination(20),
        o -> o.stdRgb(2, 2, 2).scale(0.5f))) {
      List<float[]> rows = AugmentedImages.rows(p);
      for (int r = 0; r < n; r++) {
        float[] row = rows.get(r);
        double ill = 4 * row[0] - LEVELS[0];
        for (int i = 0; i < 12; i++) {
          assertEquals((LEVELS[i % 4] + ill) / 4, row[i], 1e-4, "row " + r + ", value " + i);
        }
        assertTrue(Math.abs(ill) <= 20, "row " + r + ": illumination " + ill);
        min = Math.min(min, ill);
        max = Math.max(max, ill);
      }
    }
    assertTrue(min < -17 && max > 17, "200 draws in [-20, 20] only reached [" + min + ", " + max + "]");
  }

  /** ImageNet's RGB eigenvalues and eigenvectors (columns) from AlexNet's lighting noise, as MXNet uses them. */
  private static final double[] EIGENVALUES = {55.46, 4.794, 1.148};
  private static final double[][] EIGENVECTORS = {
      {-0.5675, 0.7192, 0.4009},
      {-0.5808, -0.0045, -0.8140},
      {-0.5836, -0.6948, 0.4203}};

  @Test
  void pcaNoiseAddsOneColourOffsetAlongImageNetsPrincipalComponents() {
    // AlexNet's lighting noise: RGB offset = sum_j eigvec_j * a_j * eigval_j with independent
    // a_j ~ N(0, sigma), the same offset at every pixel. The eigenvectors are orthonormal, so the
    // transposed matrix gives back a_j * eigval_j from the offset; over 1000 images each a_j must
    // look like N(0, sigma), and the three must be uncorrelated. (Offsets in the wrong channel
    // order, or eigenvalues paired with the wrong components, mix the large first component into the
    // others: swapping R and B, which the distributions alone hardly show, correlates a_0 and a_1 by
    // about -0.25.) The image has levels 0 and 255: an offset that is the same there too shows no clamp.
    int n = 1000;
    double sigma = 0.1;
    int[] levels = {0, 255, 90, 170};
    TestImages.Pixels in = (y, x, c) -> levels[y * 2 + x];
    Path rec = AugmentedImages.copies(dir.resolve("pca.rec"), n, 2, 2, 3, in);
    double[][] alpha = new double[3][n];
    try (ImageRecordProvider p = provider(rec, 100, 3, 2, 2, a -> a.pcaNoise((float) sigma), o -> o)) {
      List<float[]> rows = AugmentedImages.rows(p);
      assertEquals(n, rows.size());
      for (int r = 0; r < n; r++) {
        float[] row = rows.get(r);
        double[] offset = new double[3];
        for (int k = 0; k < 3; k++) {
          offset[k] = row[k * 4] - levels[0];
          for (int i = 0; i < 4; i++) {
            assertEquals(levels[i] + offset[k], row[k * 4 + i], 1e-3, "row " + r + ", channel " + k + ", pixel " + i);
          }
        }
        for (int j = 0; j < 3; j++) {
          double projection = 0;
          for (int k = 0; k < 3; k++) {
            projection += EIGENVECTORS[k][j] * offset[k];
          }
          alpha[j][r] = projection / EIGENVALUES[j];
        }
      }
    }
    // For 1000 normal draws the sample mean's standard error is sigma / 32, the standard
    // deviation's about 2.2 %, a correlation's about 0.032: the bounds allow four or five of them.
    for (int j = 0; j < 3; j++) {
      assertEquals(0, mean(alpha[j]), 0.15 * sigma, "mean of a_" + j);
      assertEquals(sigma, sd(alpha[j]), 0.1 * sigma, "standard deviation of a_" + j);
      for (int k = j + 1; k < 3; k++) {
        double corr = covariance(alpha[j], alpha[k]) / (sd(alpha[j]) * sd(alpha[k]));
        assertEquals(0, corr, 0.12, "correlation of a_" + j + " and a_" + k);
      }
    }
  }

  private static double mean(double[] v) {
    double sum = 0;
    for (double x : v) {
      sum += x;
    }
    return sum / v.length;
  }

  private static double covariance(double[] u, double[] v) {
    double mu = mean(u);
    double mv = mean(v);
    double sum = 0;
    for (int i = 0; i < u.length; i++) {
      sum += (u[i] - mu) * (v[i] - mv);
    }
    return sum / u.length;
  }

  private static double sd(double[] v) {
    return Math.sqrt(covariance(v, v));
  }

  // ---- helpers ----

  private static ImageRecordProvider provider(Path rec, int batch, int channels, int height, int width,
      Consumer<ImageRecordProvider.Augment> augment, UnaryOperator<ImageRecordProvider.Normalize> normalize) {
    return ImageRecordProvider.builder().pathImgrec(rec).batchSize(batch).dataShape(channels, height, width).seed(SEED)
        .augment(augment).normalize(normalize::apply).build();
  }
}
