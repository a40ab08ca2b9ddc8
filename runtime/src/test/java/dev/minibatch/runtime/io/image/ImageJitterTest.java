package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.AugmentedImages.augment;
import static dev.minibatch.runtime.io.image.AugmentedImages.settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.image.AugmentedImages.Output;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * torchvision's ColorJitter (brightness, contrast, saturation, hue) and RandomGrayscale against
 * their definitions, worked out by hand on small synthetic BGR images: fixed factor ranges
 * ({@code brightness(2, 2)}) pin a draw so the answer is exact; random ranges are checked over many
 * sample indices of one seed for staying in the range and reaching towards both ends. Results are
 * 8-bit, rounded to the nearest level: a tolerance of 1/2 (plus what the 8-bit gray level adds) is
 * the rounding, never a looser answer.
 */
class ImageJitterTest {
  private static final long SEED = 42;

  @TempDir Path dir;

  /** The ITU-R 601 gray level of OpenCV pixel {@code bgr}. */
  private static double gray(int[] bgr) {
    return 0.299 * bgr[2] + 0.587 * bgr[1] + 0.114 * bgr[0];
  }

  /** A 2 x 3 image of assorted colours, none gray, no channel at 0 or 255. */
  private static final int[][][] COLOURS = {
      {{30, 60, 200}, {180, 40, 90}, {20, 210, 120}},
      {{90, 90, 30}, {240, 150, 10}, {70, 20, 250}}};

  private static final TestImages.Pixels COLOURED = (y, x, c) -> COLOURS[y][x][c];

  private static Output jitter(Consumer<ImageRecordProvider.Augment> options, int[][][] image, int index) {
    int rows = image.length;
    int cols = image[0].length;
    return augment(settings(3, rows, cols, options), (y, x, c) -> image[y][x][c], rows, cols, 3, SEED, index);
  }

  // ---- brightness ----

  @Test
  void brightnessMultipliesEveryValueByTheFactorAndClamps() {
    // Factor 2: 2v, clamped to 255. Factor 1/4 on multiples of 4: v / 4 exactly.
    int[][][] in = {{{0, 10, 100}, {127, 128, 200}}, {{4, 64, 252}, {40, 80, 120}}};
    int[][][] twice = jitter(a -> a.brightness(2, 2), in, 0).window(2, 2);
    int[][][] quarter = jitter(a -> a.brightness(0.25f, 0.25f), in, 0).window(2, 2);
    for (int y = 0; y < 2; y++) {
      for (int x = 0; x < 2; x++) {
        for (int c = 0; c < 3; c++) {
          int v = in[y][x][c];
          assertEquals(Math.min(255, 2 * v), twice[y][x][c], "x2 at " + y + ", " + x + ", " + c);
          if (v % 4 == 0) {
            assertEquals(v / 4, quarter[y][x][c], "x1/4 at " + y + ", " + x + ", " + c);
          }
        }
      }
    }
  }

  @Test
  void brightnessFactorIsDrawnFromMaxOfZeroAndOneMinusVToOnePlusV() {
    // brightness(0.4): f in [0.6, 1.4]; brightness(1.5): f in [max(0, -0.5), 2.5] = [0, 2.5]. The
    // pixel of 100 shows f to 1/200 (rounding); every other value is v f to within 1/2 + v / 200.
    int[][][] in = {{{100, 100, 100}, {20, 60, 90}}};
    for (float v : new float[] {0.4f, 1.5f}) {
      double lo = Math.max(0, 1 - v);
      double hi = 1 + v;
      Augmentation.Jitter range = settings(3, 1, 2, a -> a.brightness(v)).augments().jitter();
      assertEquals(lo, range.minBrightness(), 1e-6, "v " + v);
      assertEquals(hi, range.maxBrightness(), 1e-6, "v " + v);
      double min = Double.MAX_VALUE;
      double max = 0;
      for (int i = 0; i < 300; i++) {
        int[][][] out = jitter(a -> a.brightness(v), in, i).window(1, 2);
        double f = out[0][0][0] / 100.0;
        assertTrue(f >= lo - 0.005 && f <= hi + 0.005, "v " + v + ", sample " + i + ": factor " + f);
        for (int c = 0; c < 3; c++) {
          int p = in[0][1][c];
          assertEquals(p * f, out[0][1][c], 0.5 + p / 200.0 + 1e-9, "v " + v + ", sample " + i + ", channel " + c);
        }
        min = Math.min(min, f);
        max = Math.max(max, f);
      }
      double reach = 0.05 * (hi - lo);
      assertTrue(min < lo + reach && max > hi - reach, "v " + v + ": 300 draws in [" + lo + ", " + hi
          + "] only reached [" + min + ", " + max + "]");
    }
  }

  // ---- contrast ----

  @Test
  void contrastBlendsWithTheMeanGrayLevel() {
    // A red pixel (R 200) and a gray one (100): gray levels 0.299 * 200 = 59.8 and 100, mean 79.9
    // (the mean of all six values, 83.3, would give other answers). Factor 1/2: v / 2 + 39.95, so
    // 0 -> 40, 200 -> 140, 100 -> 90; factor 0: every value 79.9 -> 80.
    int[][][] in = {{{0, 0, 200}, {100, 100, 100}}};
    int[][][] half = jitter(a -> a.contrast(0.5f, 0.5f), in, 0).window(1, 2);
    assertArrayEquals(new int[] {40, 40, 140}, half[0][0]);
    assertArrayEquals(new int[] {90, 90, 90}, half[0][1]);
    int[][][] flat = jitter(a -> a.contrast(0, 0), in, 0).window(1, 2);
    assertArrayEquals(new int[] {80, 80, 80}, flat[0][0]);
    assertArrayEquals(new int[] {80, 80, 80}, flat[0][1]);
    // On the coloured image, factor 1.5: 1.5 v - 0.5 m with m the mean of the six pixels' gray
    // levels, clamped to 0..255.
    double m = 0;
    for (int[][] row : COLOURS) {
      for (int[] p : row) {
        m += gray(p) / 6;
      }
    }
    int[][][] out = jitter(a -> a.contrast(1.5f, 1.5f), COLOURS, 0).window(2, 3);
    for (int y = 0; y < 2; y++) {
      for (int x = 0; x < 3; x++) {
        for (int c = 0; c < 3; c++) {
          double expected = Math.max(0, Math.min(255, 1.5 * COLOURS[y][x][c] - 0.5 * m));
          assertEquals(expected, out[y][x][c], 0.5 + 1e-9, "pixel " + y + ", " + x + ", channel " + c);
        }
      }
    }
  }

  @Test
  void contrastFactorIsDrawnInItsRange() {
    // contrast(0.5): c in [0.5, 1.5]. Gray levels 100 and 200 (mean 150) become 150 -+ 50 c.
    int[][][] in = {{{100, 100, 100}, {200, 200, 200}}};
    double min = Double.MAX_VALUE;
    double max = 0;
    for (int i = 0; i < 300; i++) {
      int[][][] out = jitter(a -> a.contrast(0.5f), in, i).window(1, 2);
      double c = (out[0][1][0] - out[0][0][0]) / 100.0;
      assertTrue(c >= 0.5 - 0.01 && c <= 1.5 + 0.01, "sample " + i + ": contrast " + c);
      assertEquals(300, out[0][0][1] + out[0][1][1], 1, "sample " + i + ": not centred on the mean 150");
      min = Math.min(min, c);
      max = Math.max(max, c);
    }
    assertTrue(min < 0.55 && max > 1.45, "300 draws in [0.5, 1.5] only reached [" + min + ", " + max + "]");
  }

  // ---- saturation ----

  @Test
  void saturationZeroGivesTheGrayImageAndTwoPushesAwayFromIt() {
    // s v + (1 - s) g with g the pixel's gray level (8-bit, so within 1/2 of 0.299 R + 0.587 G +
    // 0.114 B). s = 0: g in every channel. s = 2: 2 v - g, clamped; g's rounding counts once more.
    int[][][] gray = jitter(a -> a.saturation(0, 0), COLOURS, 0).window(2, 3);
    int[][][] vivid = jitter(a -> a.saturation(2, 2), COLOURS, 0).window(2, 3);
    for (int y = 0; y < 2; y++) {
      for (int x = 0; x < 3; x++) {
        double g = gray(COLOURS[y][x]);
        for (int c = 0; c < 3; c++) {
          String where = "pixel " + y + ", " + x + ", channel " + c;
          assertEquals(g, gray[y][x][c], 0.52, where);
          double expected = Math.max(0, Math.min(255, 2 * COLOURS[y][x][c] - g));
          assertEquals(expected, vivid[y][x][c], 1.02, where);
        }
      }
    }
  }

  // ---- hue ----

  @Test
  void hueTurnsPureColoursByTheShift() {
    // Red (R 200) and green (G 200) at full saturation, and a gray that no hue turn changes. HSV
    // hue in degrees: red 0, green 120; a shift s turns them by 360 s, modulo 360 (red turned back
    // wraps to the top of the circle). Expected colours (B, G, R):
    //   s = 1/3:  red -> green (0, 200, 0),      green -> blue (200, 0, 0)
    //   s = 1/6:  red -> yellow (0, 200, 200),   green -> cyan (200, 200, 0)
    //   s = -1/3: red -> blue (200, 0, 0),       green -> red (0, 0, 200)
    //   s = -1/4: red -> 270, half-way from blue to magenta (200, 0, 100),
    //             green -> 30, half-way from red to yellow (0, 100, 200)
    //   s = 1/2:  red -> cyan (200, 200, 0),     green -> magenta (200, 0, 200)
    int[][][] in = {{{0, 0, 200}, {0, 200, 0}, {90, 90, 90}}};
    float[] shifts = {1 / 3f, 1 / 6f, -1 / 3f, -0.25f, 0.5f};
    int[][][] expected = {
        {{0, 200, 0}, {200, 0, 0}},
        {{0, 200, 200}, {200, 200, 0}},
        {{200, 0, 0}, {0, 0, 200}},
        {{200, 0, 100}, {0, 100, 200}},
        {{200, 200, 0}, {200, 0, 200}}};
    for (int k = 0; k < shifts.length; k++) {
      float s = shifts[k];
      int[][][] out = jitter(a -> a.hue(s, s), in, 0).window(1, 3);
      for (int p = 0; p < 2; p++) {
        for (int c = 0; c < 3; c++) {
          assertEquals(expected[k][p][c], out[0][p][c], 1, "shift " + s + ", pixel " + p + ", channel " + c);
        }
      }
      assertArrayEquals(new int[] {90, 90, 90}, out[0][2], "shift " + s + " changed the gray pixel");
    }
  }

  @Test
  void hueShiftIsDrawnInItsRange() {
    // hue(0.1): s in [-0.1, 0.1], 36 degrees either way. Red (R 200) turned by s > 0 gets G = 1200 s
    // (hue 360 s of the 60 from red to yellow), by s < 0 gets B = -1200 s; R stays 200.
    int[][][] in = {{{0, 0, 200}}};
    double min = 0;
    double max = 0;
    for (int i = 0; i < 300; i++) {
      int[] p = jitter(a -> a.hue(0.1f), in, i).window(1, 1)[0][0];
      assertEquals(200, p[2], 1, "sample " + i);
      assertTrue(p[0] == 0 || p[1] == 0, "sample " + i + ": " + Arrays.toString(p) + " is not between magenta and yellow");
      double s = (p[1] - p[0]) / 1200.0;
      assertTrue(Math.abs(s) <= 0.1 + 1 / 1200.0, "sample " + i + ": shift " + s);
      min = Math.min(min, s);
      max = Math.max(max, s);
    }
    assertTrue(min < -0.09 && max > 0.09, "300 draws in [-0.1, 0.1] only reached [" + min + ", " + max + "]");
  }

  // ---- order ----

  @Test
  void theOperationsRunInARandomOrderPerImage() {
    // Gray levels 100 and 200, brightness 2 and contrast 1/2, both fixed:
    //   brightness first: 200, 255 (400 clamped); mean 227.5; contrast: 213.75 -> 214, 241.25 -> 241
    //   contrast first: mean 150: 125, 175; brightness: 250, 255 (350 clamped)
    // torchvision draws the order per image: each comes first half the time. Binomial(400, 1/2):
    // standard deviation 10; the bound allows five.
    int[][][] in = {{{100, 100, 100}, {200, 200, 200}}};
    int brightnessFirst = 0;
    int n = 400;
    for (int i = 0; i < n; i++) {
      int[][][] out = jitter(a -> a.brightness(2, 2).contrast(0.5f, 0.5f), in, i).window(1, 2);
      int[] levels = {out[0][0][0], out[0][1][0]};
      if (Arrays.equals(levels, new int[] {214, 241})) {
        brightnessFirst++;
      } else {
        assertArrayEquals(new int[] {250, 255}, levels, "sample " + i + " is neither order");
      }
    }
    assertEquals(n / 2.0, brightnessFirst, 50, brightnessFirst + " of " + n + " had brightness first");
  }

  // ---- random gray ----

  @Test
  void randomGrayTurnsAboutPOfTheImagesIntoTheirGrayLevels() {
    // p = 0.3 over 2000 samples: Binomial(2000, 0.3), mean 600, standard deviation 20.5; the bound
    // allows five. A gray output has R = G = B = the 601 gray level (8-bit); any other is the input.
    int n = 2000;
    int grayed = 0;
    for (int i = 0; i < n; i++) {
      int[][][] out = jitter(a -> a.randomGray(0.3f), COLOURS, i).window(2, 3);
      if (out[0][0][0] == out[0][0][1] && out[0][0][1] == out[0][0][2]) {
        grayed++;
        for (int y = 0; y < 2; y++) {
          for (int x = 0; x < 3; x++) {
            double g = gray(COLOURS[y][x]);
            for (int c = 0; c < 3; c++) {
              assertEquals(g, out[y][x][c], 0.52, "sample " + i + ", pixel " + y + ", " + x + ", channel " + c);
            }
          }
        }
      } else {
        for (int y = 0; y < 2; y++) {
          assertArrayEquals(COLOURS[y], out[y], "sample " + i + ", row " + y + " changed without turning gray");
        }
      }
    }
    assertEquals(0.3 * n, grayed, 5 * Math.sqrt(n * 0.3 * 0.7), grayed + " of " + n + " turned gray");
  }

  @Test
  void randomGrayOneAlwaysAndZeroNever() {
    for (int i = 0; i < 50; i++) {
      int[] p = jitter(a -> a.randomGray(1), COLOURS, i).window(2, 3)[1][2];
      assertEquals(Math.round(gray(COLOURS[1][2])), p[0], 1, "sample " + i);
      assertTrue(p[0] == p[1] && p[1] == p[2], "sample " + i + ": " + Arrays.toString(p));
      assertArrayEquals(COLOURS[1], jitter(a -> a.randomGray(0), COLOURS, i).window(2, 3)[1], "sample " + i);
    }
  }

  // ---- settings ----

  @Test
  void outOfRangeOrGrayscaleSettingsAreRefusedAtBuild() {
    refused(1, a -> a.brightness(0.2f), "colour images (dataShape channels 3), not 1");
    refused(4, a -> a.randomGray(0.5f), "colour images (dataShape channels 3), not 4");
    refused(1, a -> a.hue(0.1f), "colour images");
    refused(3, a -> a.brightness(-0.5f), "brightness needs a factor range 0 <= min <= max");
    refused(3, a -> a.contrast(2, 1), "contrast needs a factor range");
    refused(3, a -> a.saturation(-1, 1), "saturation needs a factor range");
    refused(3, a -> a.hue(0.6f), "hue needs -0.5 <= min <= max <= 0.5");
    refused(3, a -> a.hue(0.2f, 0.1f), "hue needs");
    refused(3, a -> a.randomGray(1.5f), "randomGray is a probability in [0, 1]");
    // Off settings need no colour: factor ranges of [1, 1], a hue range of [0, 0], probability 0.
    settings(1, 2, 2, a -> a.brightness(0).contrast(1, 1).saturation(0).hue(0).randomGray(0));
  }

  private static void refused(int channels, Consumer<ImageRecordProvider.Augment> options, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(channels, 2, 2,
        options));
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  // ---- the provider: every new draw depends on the sample alone ----

  @Test
  void oneAndThreeReaderThreadsGiveTheSameBatches() {
    // Random resized crop, the four jitters, random gray and a random mirror all draw per sample
    // from (seed, epoch, index): the batches cannot depend on which thread read which image.
    int n = 48;
    TestImages.Pixels in = (y, x, c) -> (37 * x + 11 * y + 80 * c) % 256;
    Path rec = AugmentedImages.copies(dir.resolve("jitter.rec"), n, 30, 40, 3, in);
    Consumer<ImageRecordProvider.Augment> all = a -> a.randomResizedCrop(true).randomAreaRange(0.2f, 0.9f)
        .brightness(0.4f).contrast(0.4f).saturation(0.4f).hue(0.1f).randomGray(0.2f).randMirror(true);
    List<float[]> one = rows(rec, 1, all);
    List<float[]> three = rows(rec, 3, all);
    assertEquals(n, one.size());
    for (int r = 0; r < n; r++) {
      assertArrayEquals(one.get(r), three.get(r), "row " + r);
    }
    // The copies are the same image: rows differ only by their draws, and they do differ.
    long distinct = one.stream().map(Arrays::hashCode).distinct().count();
    assertTrue(distinct > n / 2, "only " + distinct + " distinct rows of " + n);
    assertFalse(Arrays.equals(one.get(0), one.get(1)));
  }

  private static List<float[]> rows(Path rec, int threads, Consumer<ImageRecordProvider.Augment> augment) {
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(6).dataShape(3, 16, 16)
        .seed(SEED).preprocessThreads(threads).augment(augment).build()) {
      return AugmentedImages.rows(p);
    }
  }
}
