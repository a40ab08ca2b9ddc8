package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.AugmentedImages.augment;
import static dev.minibatch.runtime.io.image.AugmentedImages.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.image.AugmentedImages.Output;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * torchvision's RandomResizedCrop against its definition, on images whose pixels encode their own
 * coordinates (channel 0 the column, channel 1 the row), so the crop box reads back from the
 * output. The output is at least as large as any crop and interpolation is nearest neighbour
 * ({@code interMethod(0)}), which reads crop offset floor(j · crop / output) for output index j:
 * output (0, 0) is the box's corner and the last row and column are its last row and column.
 */
class RandomResizedCropTest {
  private static final long SEED = 42;

  /** Channel 0 is the column, channel 1 the row, channel 2 a constant. */
  private static final TestImages.Pixels WHERE = (y, x, c) -> c == 0 ? x : c == 1 ? y : 77;

  /** A crop box read back from an output of {@link #WHERE}. */
  private record Box(int x, int y, int width, int height) {
    double ratio() {
      return (double) width / height;
    }
  }

  /**
   * The box an output window of {@code outH x outW} came from, checking that every output pixel is
   * the nearest-neighbour sample of that box resized to the output.
   */
  private static Box boxOf(Output out, int outH, int outW) {
    int[][][] w = out.window(outH, outW);
    int x = w[0][0][0];
    int y = w[0][0][1];
    Box box = new Box(x, y, w[0][outW - 1][0] - x + 1, w[outH - 1][0][1] - y + 1);
    for (int i = 0; i < outH; i++) {
      for (int j = 0; j < outW; j++) {
        // Nearest neighbour: source offset floor(j * width / outW), allowing a float rounding at whole numbers.
        double sx = (double) j * box.width / outW;
        double sy = (double) i * box.height / outH;
        int dx = w[i][j][0] - x;
        int dy = w[i][j][1] - y;
        assertTrue(dx > sx - 1 - 1e-9 && dx <= sx + 1e-9, "output column " + j + " reads crop column " + dx
            + ", expected floor(" + sx + ") of " + box);
        assertTrue(dy > sy - 1 - 1e-9 && dy <= sy + 1e-9, "output row " + i + " reads crop row " + dy
            + ", expected floor(" + sy + ") of " + box);
        assertEquals(77, w[i][j][2]);
      }
    }
    return box;
  }

  @Test
  void everyCropLiesInsideTheImageWithItsAreaAndRatioInTheRanges() {
    // A 60 x 40 image (cols x rows), output 64 wide and 48 high, larger than any crop. Width and
    // height are round(sqrt(A r)) and round(sqrt(A / r)) for area A and ratio r, so A and r are
    // known from a box only to within the rounding: sqrt(A r) in [w - 1/2, w + 1/2] and sqrt(A / r)
    // in [h - 1/2, h + 1/2] give A in [(w - 1/2)(h - 1/2), (w + 1/2)(h + 1/2)] and r in
    // [(w - 1/2)/(h + 1/2), (w + 1/2)/(h - 1/2)]; those intervals must meet the ranges.
    int rows = 40;
    int cols = 60;
    Augmentation a = settings(3, 48, 64, o -> o.randomResizedCrop(true).randomAreaRange(0.1f, 0.6f)
        .randomRatioRange(0.5f, 1.5f).interMethod(0));
    double area = rows * cols;
    double minArea = Double.MAX_VALUE;
    double maxArea = 0;
    double minRatio = Double.MAX_VALUE;
    double maxRatio = 0;
    int atLeft = 0;
    int atRight = 0;
    int atTop = 0;
    int atBottom = 0;
    int n = 500;
    for (int i = 0; i < n; i++) {
      Output out = augment(a, WHERE, rows, cols, 3, SEED, i);
      assertEquals(0, out.x(), "the output is the resized crop itself");
      assertEquals(0, out.y());
      assertEquals(48, out.rows());
      assertEquals(64, out.cols());
      Box b = boxOf(out, 48, 64);
      String s = "sample " + i + ": " + b;
      assertTrue(b.x >= 0 && b.y >= 0 && b.x + b.width <= cols && b.y + b.height <= rows, s + " leaves the image");
      double w = b.width;
      double h = b.height;
      assertTrue((w + 0.5) * (h + 0.5) >= 0.1 * area && (w - 0.5) * (h - 0.5) <= 0.6 * area, s + ": area fraction "
          + w * h / area + " outside [0.1, 0.6]");
      assertTrue((w + 0.5) / (h - 0.5) >= 0.5 && (w - 0.5) / (h + 0.5) <= 1.5, s + ": ratio " + w / h
          + " outside [0.5, 1.5]");
      minArea = Math.min(minArea, w * h / area);
      maxArea = Math.max(maxArea, w * h / area);
      minRatio = Math.min(minRatio, b.ratio());
      maxRatio = Math.max(maxRatio, b.ratio());
      atLeft += b.x == 0 ? 1 : 0;
      atRight += b.x + b.width == cols ? 1 : 0;
      atTop += b.y == 0 ? 1 : 0;
      atBottom += b.y + b.height == rows ? 1 : 0;
    }
    assertTrue(minArea < 0.12 && maxArea > 0.55, "500 draws in [0.1, 0.6] only reached [" + minArea + ", " + maxArea
        + "]");
    assertTrue(minRatio < 0.55 && maxRatio > 1.4, "500 draws in [0.5, 1.5] only reached [" + minRatio + ", "
        + maxRatio + "]");
    // The position is uniform over every place the box fits: each edge is reached.
    assertTrue(atLeft > 0 && atRight > 0 && atTop > 0 && atBottom > 0, "boxes at the left, right, top, bottom: "
        + atLeft + ", " + atRight + ", " + atTop + ", " + atBottom);
  }

  @Test
  void theRatioIsDrawnUniformlyInLogSpace() {
    // With ratios in [1/2, 2], a log-uniform draw is below 1 half the time; a uniform draw would be
    // below 1 a third of the time ((1 - 1/2) / (2 - 1/2)). Small areas of a square image always fit,
    // so no attempt is rejected and nothing but the draw shapes the box: count boxes narrower than
    // tall among those that are not square. Binomial(n, 1/2) with n about 850: a standard deviation
    // of 1/58; the bound allows five of them. (A 40 x 40 image: the widest box, sqrt(0.3 * 1600 * 2)
    // = 31, fits the 32 x 32 output.)
    Augmentation a = settings(3, 32, 32, o -> o.randomResizedCrop(true).randomAreaRange(0.1f, 0.3f)
        .randomRatioRange(0.5f, 2f).interMethod(0));
    int narrow = 0;
    int notSquare = 0;
    for (int i = 0; i < 1000; i++) {
      Box b = boxOf(augment(a, WHERE, 40, 40, 3, SEED, i), 32, 32);
      if (b.width != b.height) {
        notSquare++;
        narrow += b.width < b.height ? 1 : 0;
      }
    }
    double share = (double) narrow / notSquare;
    assertEquals(0.5, share, 5 * 0.5 / Math.sqrt(notSquare), narrow + " of " + notSquare + " boxes narrower than tall");
  }

  @Test
  void aWideImageThatNoAttemptFitsFallsBackToTheCentreCropAtTheLargestRatio() {
    // 200 x 20 with areas of at least 0.9: height sqrt(A / r) >= sqrt(3600 / (4/3)) = 52 > 20 rows,
    // so all 10 attempts fail. The image's ratio 10 is above 4/3: torchvision keeps the full
    // height 20 and takes width round(20 * 4/3) = 27, centred: column (200 - 27) / 2 = 86, row 0.
    Augmentation a = settings(3, 32, 32, o -> o.randomResizedCrop(true).randomAreaRange(0.9f, 1f).interMethod(0));
    for (int i = 0; i < 20; i++) {
      assertEquals(new Box(86, 0, 27, 20), boxOf(augment(a, WHERE, 20, 200, 3, SEED, i), 32, 32), "sample " + i);
    }
  }

  @Test
  void aTallImageThatNoAttemptFitsFallsBackToTheCentreCropAtTheSmallestRatio() {
    // 20 x 200 (cols x rows), ratio 0.1 below 3/4: full width 20, height round(20 / (3/4)) = 27,
    // centred: row (200 - 27) / 2 = 86, column 0.
    Augmentation a = settings(3, 32, 32, o -> o.randomResizedCrop(true).randomAreaRange(0.9f, 1f).interMethod(0));
    for (int i = 0; i < 20; i++) {
      assertEquals(new Box(0, 86, 20, 27), boxOf(augment(a, WHERE, 200, 20, 3, SEED, i), 32, 32), "sample " + i);
    }
  }

  @Test
  void anImageWhoseRatioIsInTheRangeFallsBackToTheWholeImage() {
    // Areas of at most 0.002 of a 10 x 9 image round both sides to 0 (sqrt(0.18 * 4/3) < 1/2), so
    // every attempt fails; the image's ratio 10/9 is inside [3/4, 4/3], so the whole image is kept.
    Augmentation a = settings(3, 16, 16, o -> o.randomResizedCrop(true).randomAreaRange(0.001f, 0.002f)
        .interMethod(0));
    for (int i = 0; i < 20; i++) {
      assertEquals(new Box(0, 0, 10, 9), boxOf(augment(a, WHERE, 9, 10, 3, SEED, i), 16, 16), "sample " + i);
    }
  }

  @Test
  void theCropIsResizedToTheOutputWithTheInterpolationAsked() {
    // Bilinear (interMethod 1) enlarging a box: every value lies between the box's first and last
    // column, and values between whole columns appear, which nearest neighbour never gives.
    Augmentation a = settings(3, 48, 64, o -> o.randomResizedCrop(true).randomAreaRange(0.05f, 0.1f));
    Output out = augment(a, (y, x, c) -> c == 0 ? 4 * x : c == 1 ? 4 * y : 77, 40, 60, 3, SEED, 3);
    assertEquals(48, out.rows());
    assertEquals(64, out.cols());
    boolean between = false;
    for (int[][] row : out.image()) {
      for (int[] p : row) {
        between |= p[0] % 4 != 0;
      }
    }
    assertTrue(between, "no interpolated value: the crop was not resized bilinearly");
  }

  @Test
  void contradictoryCropOptionsAreRefusedAtBuild() {
    refused(o -> o.randomResizedCrop(true).randCrop(true), "drop randCrop");
    refused(o -> o.randomResizedCrop(true).cropXStart(3), "drop cropYStart/cropXStart");
    refused(o -> o.randomResizedCrop(true).minCropSize(4).maxCropSize(8), "minCropSize/maxCropSize");
    refused(o -> o.randomAreaRange(0.2f, 0.5f), "set randomResizedCrop(true)");
    refused(o -> o.randomRatioRange(0.5f, 2f), "set randomResizedCrop(true)");
    refused(o -> o.randomResizedCrop(true).randomAreaRange(0.5f, 0.2f), "0 < min <= max <= 1");
    refused(o -> o.randomResizedCrop(true).randomAreaRange(0.5f, 1.5f), "0 < min <= max <= 1");
    refused(o -> o.randomResizedCrop(true).randomRatioRange(0, 1), "0 < min <= max");
    // resize, the affine step and pad come before the crop and are accepted beside it.
    settings(3, 8, 8, o -> o.randomResizedCrop(true).resize(16).pad(2).maxRotateAngle(10));
  }

  private static void refused(Consumer<ImageRecordProvider.Augment> options, String fix) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(3, 8, 8, options));
    assertTrue(e.getMessage().contains(fix), e.getMessage());
  }
}
