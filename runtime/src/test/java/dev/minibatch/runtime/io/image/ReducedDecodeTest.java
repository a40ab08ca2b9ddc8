package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.AugmentedImages.settings;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Point;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reduced decoding ({@link ImageRecordProvider.Builder#reducedDecode(boolean)}): the scale chosen
 * on cases worked out by hand, the crops and draws the same as a full decode's, the pixels within
 * the tolerance docs/images.md states of a full decode with the same crop and resize, and the same
 * batches for any number of reader threads.
 */
class ReducedDecodeTest {
  private static final long SEED = 24;
  /**
   * docs/images.md, "Reduced decoding": the mean absolute difference, in grey levels of 255, with
   * area interpolation (interMethod 3, or 9, which picks area to shrink) and with the others that
   * reduce (1 bilinear, 2 bicubic, 4 Lanczos, which alias when a full-size crop shrinks by more than
   * 2 and so differ more from the reduced decode, which does not).
   */
  private static final double MEAN_AREA = 2.0;
  private static final double MEAN_OTHER = 3.5;
  /** The largest difference of one value, at the sharp edges. */
  private static final double MAX_AREA = 80;
  private static final double MAX_OTHER = 130;

  @TempDir Path dir;

  /**
   * A photo-like test image: smooth gradients in the three channels plus a filled rectangle, a
   * ring and a thin line with sharp edges, placed by {@code k}.
   */
  static byte[] jpeg(int rows, int cols, int k) {
    TestImages.Pixels smooth = (y, x, c) -> switch (c) {
      case 0 -> 30 + 190 * x / cols;
      case 1 -> 40 + 170 * y / rows;
      default -> (int) (128 + 90 * Math.sin((x + 2.0 * y + 37 * k) / 60.0));
    };
    try (Mat m = TestImages.mat(rows, cols, 3, smooth);
        Point a = new Point(cols / 5 + 7 * k, rows / 4);
        Point b = new Point(cols / 2 + 5 * k, rows / 2 + 3 * k);
        Point centre = new Point(cols * 2 / 3 - 4 * k, rows * 2 / 3);
        Point l0 = new Point(0, rows / 3 + k);
        Point l1 = new Point(cols - 1, rows / 2 - k);
        Scalar dark = new Scalar(20, 30 + k, 200, 0);
        Scalar light = new Scalar(240, 250, 40 + k, 0);
        Scalar line = new Scalar(0, 0, 0, 0)) {
      opencv_imgproc.rectangle(m, a, b, dark, -1, 8, 0);
      opencv_imgproc.circle(m, centre, rows / 6, light, 5, 8, 0);
      opencv_imgproc.line(m, l0, l1, line, 2, 8, 0);
      return TestImages.encode(m, ".jpg");
    }
  }

  // ---- the scale, by hand ----

  /** The reduction {@link Augmenter#plan} chooses for an image of rows x cols and sample 0. */
  private static int scale(int rows, int cols, int outH, int outW, Consumer<ImageRecordProvider.Augment> o) {
    Augmentation a = settings(3, outH, outW, o);
    assertTrue(Augmenter.reducible(a));
    try (Augmenter aug = new Augmenter(a)) {
      return aug.plan(rows, cols, new SeededRandom().reset(SEED, 0, 0));
    }
  }

  @Test
  void theLargestReductionThatKeepsTheCropAtTheOutputsResolution() {
    // A 224 centre crop of 500x375 (minCropSize = maxCropSize): 224 >= 112·2 but < 112·4 → 2;
    // 224 >= 56·4 → 4; 224 >= 28·8 → 8; 224 < 113·2 → 1; a crop smaller than the output (225) → 1.
    Consumer<ImageRecordProvider.Augment> centre224 = o -> o.minCropSize(224).maxCropSize(224);
    assertEquals(2, scale(375, 500, 112, 112, centre224));
    assertEquals(4, scale(375, 500, 56, 56, centre224));
    assertEquals(8, scale(375, 500, 28, 28, centre224));
    assertEquals(1, scale(375, 500, 113, 113, centre224));
    assertEquals(1, scale(375, 500, 225, 225, centre224));
    // Both axes count: 224 is enough for 56·4 wide but not for 57·4 = 228 high → 2.
    assertEquals(2, scale(375, 500, 57, 56, centre224));
    // The whole 500x375 image as the random resized crop's box (area 1, ratio 4/3): 500 >= 125·4
    // and 375 >= 93·4 → 4; 126 wide needs 504 → 2.
    Consumer<ImageRecordProvider.Augment> whole = o -> o.randomResizedCrop(true).randomAreaRange(1, 1)
        .randomRatioRange(4f / 3, 4f / 3);
    assertEquals(4, scale(375, 500, 93, 125, whole));
    assertEquals(2, scale(375, 500, 93, 126, whole));
    // resize(100) makes 500x375 133x100: 375 >= 100·2, 500 >= 133·2, 375 < 100·4 → 2. resize(46)
    // makes it 61x46: 375 >= 46·8 and 500 >= 61·8 → 8; resize(47), 62x47: 375 < 47·8 → 4.
    assertEquals(2, scale(375, 500, 96, 96, o -> o.resize(100).randCrop(true)));
    assertEquals(8, scale(375, 500, 40, 40, o -> o.resize(46)));
    assertEquals(4, scale(375, 500, 40, 40, o -> o.resize(47)));
    // A resize to a larger size never reduces.
    assertEquals(1, scale(375, 500, 224, 224, o -> o.resize(256).randCrop(true)));
  }

  @Test
  void settingsThatNeedTheFullSizePixelsDecodeAtFullSize() {
    // Resized crops allow it; the affine step, padding, 4 channels and the plain crop do not.
    assertTrue(Augmenter.reducible(settings(3, 64, 64, o -> o.randomResizedCrop(true))));
    assertTrue(Augmenter.reducible(settings(1, 64, 64, o -> o.minCropSize(100).maxCropSize(200))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> o.randomResizedCrop(true).maxRotateAngle(10))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> o.randomResizedCrop(true).maxRandomScale(1.2f))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> o.resize(100).pad(4))));
    assertFalse(Augmenter.reducible(settings(4, 64, 64, o -> o.randomResizedCrop(true))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> o.randCrop(true))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> o.randomResizedCrop(true).interMethod(0))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> o.randomResizedCrop(true).interMethod(10))));
    assertFalse(Augmenter.reducible(settings(3, 64, 64, o -> {})));
  }

  @Test
  void theSizeComesFromTheFrameHeaderWithoutTheRestOfTheCheck() {
    // Later epochs skip the check; the walk stopped at the frame header gives the size.
    JpegCheck check = new JpegCheck();
    byte[] image = turned(jpeg(375, 500, 0));
    java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(image.length + 5);
    direct.position(5);
    direct.put(image);
    assertTrue(check.frameSize(direct, 5, image.length));
    assertEquals(500, check.frameWidth());
    assertEquals(375, check.frameHeight());
    byte[] png = TestImages.png(3, 4, 1, (y, x, c) -> x);
    assertFalse(check.frameSize(java.nio.ByteBuffer.wrap(png), 0, png.length));
    // Cut before the frame header: no size.
    assertFalse(check.frameSize(java.nio.ByteBuffer.wrap(image), 0, 40));
  }

  // ---- the same draws ----

  private static Mat decode(byte[] jpeg, int flags) {
    try (BytePointer p = new BytePointer(jpeg.length)) {
      p.put(jpeg);
      return OpenCv.decode(p, 0, jpeg.length, flags);
    }
  }

  private static int reducedFlags(int d) {
    return d == 2 ? IMREAD_REDUCED_COLOR_2 : d == 4 ? IMREAD_REDUCED_COLOR_4 : d == 8 ? IMREAD_REDUCED_COLOR_8
        : IMREAD_COLOR;
  }

  @Test
  void aSeedGivesTheSameCropBoxesAndDrawsWithAndWithoutTheReduction() {
    OpenCv.require();
    byte[] image = jpeg(375, 500, 1);
    List<Consumer<ImageRecordProvider.Augment>> options = List.of(
        o -> o.randomResizedCrop(true).randMirror(true),
        o -> o.minCropSize(100).maxCropSize(370).randCrop(true).interMethod(9).randMirror(true),
        o -> o.resize(120).randCrop(true).randMirror(true));
    int reduced = 0;
    for (Consumer<ImageRecordProvider.Augment> o : options) {
      Augmentation a = settings(3, 48, 40, o);
      try (Augmenter full = new Augmenter(a); Augmenter small = new Augmenter(a); Mat whole = decode(image, IMREAD_COLOR)) {
        SeededRandom r = new SeededRandom();
        for (int i = 0; i < 200; i++) {
          r.reset(SEED, 3, i);
          full.apply(whole, r);
          long nextFull = r.nextLong();
          r.reset(SEED, 3, i);
          int d = small.plan(375, 500, r);
          try (Mat part = decode(image, reducedFlags(d))) {
            assertEquals((375 + d - 1) / d, part.rows());
            assertEquals((500 + d - 1) / d, part.cols());
            small.apply(part, r);
          }
          String at = "sample " + i + ", reduction " + d;
          assertEquals(full.cropX(), small.cropX(), at);
          assertEquals(full.cropY(), small.cropY(), at);
          assertEquals(full.cropWidth(), small.cropWidth(), at);
          assertEquals(full.cropHeight(), small.cropHeight(), at);
          assertEquals(nextFull, r.nextLong(), "the draws after the crop, " + at);
          reduced += d > 1 ? 1 : 0;
        }
      }
    }
    assertTrue(reduced > 300, reduced + " of 600 samples reduced");
  }

  // ---- the pixels ----

  private Path records(String name, int rows, int cols, int n) {
    List<ImageRecord> records = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      records.add(ImageRecord.of(k, k, jpeg(rows, cols, k)));
    }
    return TestImages.write(dir.resolve(name + ".rec"), records);
  }

  private static List<float[]> epoch(Path rec, int outH, int outW, boolean reduced, int threads,
      Consumer<ImageRecordProvider.Augment> o) {
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).dataShape(3, outH, outW)
        .batchSize(4).seed(SEED).shuffle(true).dtype(DType.UINT8).augment(o).reducedDecode(reduced)
        .preprocessThreads(threads).build()) {
      return AugmentedImages.rows(p);
    }
  }

  /** Mean and largest absolute difference of two epochs, in grey levels. */
  private static double[] difference(List<float[]> x, List<float[]> y) {
    double sum = 0;
    double max = 0;
    long n = 0;
    for (int r = 0; r < x.size(); r++) {
      float[] a = x.get(r);
      float[] b = y.get(r);
      for (int k = 0; k < a.length; k++) {
        double d = Math.abs(a[k] - b[k]);
        sum += d;
        max = Math.max(max, d);
        n++;
      }
    }
    return new double[] {sum / n, max};
  }

  private void withinTolerance(String name, int rows, int cols, int outH, int outW, double mean, double max,
      Consumer<ImageRecordProvider.Augment> o) {
    Path rec = records(name, rows, cols, 8);
    List<float[]> full = epoch(rec, outH, outW, false, 2, o);
    List<float[]> reduced = epoch(rec, outH, outW, true, 2, o);
    double[] d = difference(full, reduced);
    String measured = String.format(Locale.ROOT, "%s: mean difference %.3f, largest %.0f", name, d[0], d[1]);
    assertTrue(d[0] > 0, name + ": the reduced decode changed nothing, so it did not run");
    assertTrue(d[0] < mean && d[1] <= max, measured + "; tolerance mean < " + mean + ", largest <= " + max);
  }

  @Test
  void reducedPixelsAreWithinTheToleranceOfAFullDecodeWithTheSameCrop() {
    for (int inter : new int[] {1, 2, 3, 4, 9}) {
      double mean = inter == 3 || inter == 9 ? MEAN_AREA : MEAN_OTHER;
      double max = inter == 3 || inter == 9 ? MAX_AREA : MAX_OTHER;
      withinTolerance("random resized crop of 500x375 to 112, interMethod " + inter, 375, 500, 112, 112, mean, max,
          o -> o.randomResizedCrop(true).interMethod(inter));
      withinTolerance("random resized crop of 256x256 to 64, interMethod " + inter, 256, 256, 64, 64, mean, max,
          o -> o.randomResizedCrop(true).interMethod(inter));
      withinTolerance("centre crop 224 of 500x375 to 56, interMethod " + inter, 375, 500, 56, 56, mean, max,
          o -> o.minCropSize(224).maxCropSize(224).interMethod(inter));
      withinTolerance("resize 100 of 500x375, random crop 96, interMethod " + inter, 375, 500, 96, 96, mean, max,
          o -> o.resize(100).randCrop(true).interMethod(inter));
    }
  }

  /** {@code jpeg} with an EXIF APP1 segment after SOI that gives orientation 6 (turn 90° clockwise to show). */
  static byte[] turned(byte[] jpeg) {
    byte[] app1 = {(byte) 0xFF, (byte) 0xE1, 0, 34, 'E', 'x', 'i', 'f', 0, 0,
        'M', 'M', 0, 42, 0, 0, 0, 8, // TIFF header, big-endian, first IFD at 8
        0, 1, 1, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, // one entry: Orientation (0x0112), SHORT, 1 value: 6
        0, 0, 0, 0}; // no next IFD
    byte[] out = new byte[jpeg.length + app1.length];
    System.arraycopy(jpeg, 0, out, 0, 2);
    System.arraycopy(app1, 0, out, 2, app1.length);
    System.arraycopy(jpeg, 2, out, 2 + app1.length, jpeg.length - 2);
    return out;
  }

  @Test
  void aJpegTurnedByItsExifOrientationDecodesAtFullSizeWithTheSameDraws() {
    // OpenCV turns the image to 375 wide x 500 high, so the frame header's 500 x 375 is not what the
    // decoder gives: the provider replays the sample's draws on a full decode, and the batches are
    // those of reducedDecode(false) exactly.
    byte[] image = turned(jpeg(375, 500, 2));
    try (Mat m = decode(image, IMREAD_COLOR)) {
      assertEquals(500, m.rows());
      assertEquals(375, m.cols());
    }
    List<ImageRecord> records = new ArrayList<>();
    for (int k = 0; k < 8; k++) {
      records.add(ImageRecord.of(k, k, image));
    }
    Path rec = TestImages.write(dir.resolve("turned.rec"), records);
    Consumer<ImageRecordProvider.Augment> o = a -> a.randomResizedCrop(true).randMirror(true);
    List<float[]> full = epoch(rec, 112, 112, false, 1, o);
    List<float[]> reduced = epoch(rec, 112, 112, true, 1, o);
    for (int r = 0; r < full.size(); r++) {
      assertArrayEquals(full.get(r), reduced.get(r), "row " + r);
    }
  }

  @Test
  void oneAndThreeReaderThreadsGiveTheSameBatches() {
    Path rec = records("threads", 375, 500, 12);
    Consumer<ImageRecordProvider.Augment> o = a -> a.randomResizedCrop(true).randMirror(true);
    List<float[]> one = epoch(rec, 112, 112, true, 1, o);
    List<float[]> three = epoch(rec, 112, 112, true, 3, o);
    assertEquals(12, one.size());
    for (int r = 0; r < one.size(); r++) {
      assertArrayEquals(one.get(r), three.get(r), "row " + r);
    }
  }
}
