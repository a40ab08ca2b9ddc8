package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.contract.EngineThreads;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * ImageRecordProvider against hand-computed pixels: lossless PNGs whose pixel values follow a
 * formula, so every crop offset, mirror, channel swap and normalisation can be checked value by
 * value.
 */
class ImageRecordProviderTest {
  @TempDir Path dir;

  /** The test image's OpenCV (BGR) value at row y, column x, channel c: 6 rows, 8 columns. */
  private static int bgr(int y, int x, int c) {
    return (y * 8 + x) * 3 + c;
  }

  /** The same image's value in RGB channel k (OpenCV stores B, G, R: k = 2 - c). */
  private static int rgb(int y, int x, int k) {
    return bgr(y, x, 2 - k);
  }

  private Path oneImage(float label) {
    return TestImages.write(dir.resolve("one.rec"), List.of(ImageRecord.of(0, label, TestImages.png(6, 8, 3,
        ImageRecordProviderTest::bgr))));
  }

  private static float[] row(INDArray batch, int r) {
    return batch.slice(r).dup().castTo(DataType.FLOAT).data().asFloat();
  }

  private static List<float[]> dataRows(ImageRecordProvider p) {
    List<float[]> rows = new ArrayList<>();
    for (NamedBatch b : p) {
      for (int r = 0; r < b.countSamples(); r++) {
        rows.add(row(b.data().get(0), r));
      }
    }
    return rows;
  }

  private ImageRecordProvider.Builder one(UnaryOperator<ImageRecordProvider.Builder> settings) {
    return settings.apply(ImageRecordProvider.builder().pathImgrec(oneImage(7)).batchSize(1));
  }

  /** CHW of RGB values from a window of the test image: (y0 + i, x(j)) for output (i, j). */
  private static float[] expectedChw(int h, int w, int y0, java.util.function.IntUnaryOperator x) {
    float[] out = new float[3 * h * w];
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
          out[k * h * w + i * w + j] = rgb(y0 + i, x.applyAsInt(j), k);
        }
      }
    }
    return out;
  }

  @Test
  void defaultIsACentreCropOfRawRgbPlanes() {
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4)).build()) {
      DataDesc data = p.provideData().get(0);
      assertEquals("data", data.name());
      assertEquals("NCHW", data.layout());
      assertEquals(DType.FLOAT32, data.dtype());
      assertArrayEquals(new long[] {1, 3, 4, 4}, data.shape().toLongArray());
      assertEquals("softmax_label", p.provideLabel().get(0).name());
      NamedBatch b = p.iterator().next();
      // Centre: y0 = (6 - 4) / 2 = 1, x0 = (8 - 4) / 2 = 2.
      assertArrayEquals(expectedChw(4, 4, 1, j -> 2 + j), row(b.data().get(0), 0));
      assertEquals(7f, b.label().get(0).getFloat(0));
    }
  }

  @Test
  void mirrorFlipsColumns() {
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4).augment(a -> a.mirror(true))).build()) {
      assertArrayEquals(expectedChw(4, 4, 1, j -> 2 + (3 - j)), dataRows(p).get(0));
    }
  }

  @Test
  void cropStartsReplaceTheCentre() {
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4).augment(a -> a.cropYStart(0).cropXStart(4))).build()) {
      assertArrayEquals(expectedChw(4, 4, 0, j -> 4 + j), dataRows(p).get(0));
    }
    ImageRecordProvider.Builder tooFar = one(b -> b.dataShape(3, 4, 4).augment(a -> a.cropXStart(5)));
    try (ImageRecordProvider p = tooFar.build()) {
      StageFailedException e = assertThrows(StageFailedException.class, () -> dataRows(p));
      FileFormatException f = assertInstanceOf(FileFormatException.class, e.getCause());
      assertTrue(f.getMessage().contains("record 0 at offset 0 (image id 0): cropXStart 5 + width 4 exceeds the "
          + "image's 8 columns"), f.getMessage());
    }
  }

  @Test
  void meanStdAndScaleFollowTheFormula() {
    float[] mean = {10, 20, 30};
    float[] std = {2, 4, 8};
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4)
        .normalize(n -> n.meanRgb(10, 20, 30).stdRgb(2, 4, 8).scale(0.5f))).build()) {
      float[] raw = expectedChw(4, 4, 1, j -> 2 + j);
      float[] expected = new float[raw.length];
      for (int i = 0; i < raw.length; i++) {
        int k = i / 16;
        expected[i] = (raw[i] - mean[k]) * 0.5f / std[k];
      }
      assertArrayEquals(expected, dataRows(p).get(0), 1e-6f);
    }
  }

  @Test
  void channelsLastUint8IsRawInterleavedRgb() {
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4).channelsLast(true).dtype(DType.UINT8)).build()) {
      DataDesc data = p.provideData().get(0);
      assertEquals("NHWC", data.layout());
      assertEquals(DType.UINT8, data.dtype());
      assertArrayEquals(new long[] {1, 4, 4, 3}, data.shape().toLongArray());
      float[] expected = new float[48];
      for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
          for (int k = 0; k < 3; k++) {
            expected[(i * 4 + j) * 3 + k] = rgb(1 + i, 2 + j, k);
          }
        }
      }
      assertArrayEquals(expected, dataRows(p).get(0));
    }
  }

  @Test
  void uint8PlanesAreRawMirroredRgb() {
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4).dtype(DType.UINT8).augment(a -> a.mirror(true))).build()) {
      assertArrayEquals(expectedChw(4, 4, 1, j -> 2 + (3 - j)), dataRows(p).get(0));
    }
    // A gray image (one plane) through the same path.
    Path rec = TestImages.write(dir.resolve("gray.rec"), List.of(ImageRecord.of(0, 0,
        TestImages.png(2, 3, 1, (y, x, c) -> 10 * y + x))));
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(1).dataShape(1, 2, 3)
        .dtype(DType.UINT8).build()) {
      assertArrayEquals(new float[] {0, 1, 2, 10, 11, 12}, dataRows(p).get(0));
    }
  }

  @Test
  void channelsLastFloatIsInterleavedAndMirrored() {
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4).channelsLast(true)
        .augment(a -> a.mirror(true)).normalize(n -> n.scale(2))).build()) {
      float[] expected = new float[48];
      for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
          for (int k = 0; k < 3; k++) {
            expected[(i * 4 + j) * 3 + k] = 2 * rgb(1 + i, 2 + (3 - j), k);
          }
        }
      }
      assertArrayEquals(expected, dataRows(p).get(0));
    }
  }

  @Test
  void resizeScalesTheShorterSide() {
    // 6x8 with resize(3): the shorter side (6 rows) becomes 3, the width 3 * 8 / 6 = 4. Nearest
    // neighbour takes source pixel (2i, 2j); the 3x4 output needs no crop.
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 3, 4).augment(a -> a.resize(3).interMethod(0))).build()) {
      float[] expected = new float[36];
      for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++) {
          for (int j = 0; j < 4; j++) {
            expected[k * 12 + i * 4 + j] = rgb(2 * i, 2 * j, k);
          }
        }
      }
      assertArrayEquals(expected, dataRows(p).get(0));
    }
  }

  @Test
  void smallImagesAreUpscaledKeepingTheirAspect() {
    // A 2x3 gray image for a 4x6 output: scale max(4/2, 6/3) = 2, nearest neighbour doubles each pixel.
    Path rec = TestImages.write(dir.resolve("small.rec"), List.of(ImageRecord.of(0, 0,
        TestImages.png(2, 3, 1, (y, x, c) -> 10 * y + x))));
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(1).dataShape(1, 4, 6)
        .augment(a -> a.interMethod(0)).build()) {
      float[] expected = new float[24];
      for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 6; j++) {
          expected[i * 6 + j] = 10 * (i / 2) + j / 2;
        }
      }
      assertArrayEquals(expected, dataRows(p).get(0));
    }
  }

  @Test
  void packedLabelsListLabelsAndWidthMismatches() throws IOException {
    byte[] img = TestImages.png(4, 4, 3, ImageRecordProviderTest::bgr);
    Path rec = TestImages.write(dir.resolve("multi.rec"), List.of(ImageRecord.of(5, new float[] {1.5f, 2.5f, 3.5f}, img),
        ImageRecord.of(9, new float[] {4, 5, 6}, img)));
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(2).dataShape(3, 4, 4)
        .labelWidth(3).build()) {
      DataDesc label = p.provideLabel().get(0);
      assertArrayEquals(new long[] {2, 3}, label.shape().toLongArray());
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new float[] {1.5f, 2.5f, 3.5f}, row(b.label().get(0), 0));
      assertArrayEquals(new float[] {4, 5, 6}, row(b.label().get(0), 1));
    }
    // A list replaces the records' labels by image id.
    Path lst = dir.resolve("multi.lst");
    new ImageList(List.of(new ImageList.Entry(9, new float[] {0, 1}, "b.png"),
        new ImageList.Entry(5, new float[] {2, 3}, "a.png"))).write(lst);
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).pathImglist(lst).batchSize(2)
        .dataShape(3, 4, 4).labelWidth(2).build()) {
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new float[] {2, 3}, row(b.label().get(0), 0));
      assertArrayEquals(new float[] {0, 1}, row(b.label().get(0), 1));
    }
    // Record 0 is checked at build, so the width that fits is named before any thread reads
    // (ImageRecordBadInputTest has the later-record case).
    assertEquals(rec + ": record 0 at offset 0 (image id 5): the record packs 3 labels but labelWidth is 2; set "
        + "labelWidth(3) to read them, or give pathImglist with 2 labels per image",
        assertThrows(FileFormatException.class, () -> ImageRecordProvider.builder().pathImgrec(rec).batchSize(2)
            .dataShape(3, 4, 4).labelWidth(2).build()).getMessage());
  }

  @Test
  void aRecordSplitAtAnAlignedMagicWordIsJoined() throws IOException {
    // Image id 0xCED7230A puts the magic word at payload offset 8 (aligned): the writer splits there.
    long id = 0xCED7230AL;
    Path rec = TestImages.write(dir.resolve("split.rec"), List.of(ImageRecord.of(id, 3,
        TestImages.png(6, 8, 3, ImageRecordProviderTest::bgr))));
    byte[] file = Files.readAllBytes(rec);
    assertEquals(1, (file[7] & 0xff) >>> 5, "the first part has flag 1");
    assertEquals(8, file[4] & 0xff, "the first part holds the 8 bytes before the magic word");
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(1).dataShape(3, 4, 4)
        .build()) {
      NamedBatch b = p.iterator().next();
      assertArrayEquals(expectedChw(4, 4, 1, j -> 2 + j), row(b.data().get(0), 0));
      assertEquals(3f, b.label().get(0).getFloat(0));
    }
  }

  @Test
  void anUndecodableImageNamesFileRecordOffsetAndId() throws InterruptedException {
    byte[] png = TestImages.png(6, 8, 3, ImageRecordProviderTest::bgr);
    byte[] junk = {1, 2, 3, 4, 5, 6, 7, 8};
    Path rec = TestImages.write(dir.resolve("junk.rec"), List.of(ImageRecord.of(0, 0, png), ImageRecord.of(41, 0, junk)));
    long offset = 8 + ((24 + png.length + 3) & ~3);
    java.util.Set<Thread> before = EngineThreads.live();
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(1).dataShape(3, 4, 4)
        .preprocessThreads(1).build()) {
      StageFailedException e = assertThrows(StageFailedException.class, () -> dataRows(p));
      assertEquals(rec + ": record 1 at offset " + offset + " (image id 41): OpenCV cannot decode the 8 image bytes "
          + "(they start with 0x01020304); expected a JPEG, PNG or another format OpenCV reads", e.getCause().getMessage());
      assertEquals("image", e.stage());
      assertEquals(1, e.sampleIndex());
      // The contract's failing-sample test needs an injected exception as the root cause, which a
      // provider without user code cannot take; this is its counterpart: the reader threads end.
      java.util.Set<Thread> alive = EngineThreads.awaitOnly(before, 10);
      assertTrue(alive.isEmpty(), "alive 10 s after the failure reached the consumer: " + EngineThreads.describe(alive));
    }
  }


  private Path augmentedSet(int n) {
    List<ImageRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int s = i;
      records.add(ImageRecord.of(i, i, TestImages.png(6, 8, 3, (y, x, c) -> (bgr(y, x, c) + s) % 256)));
    }
    return TestImages.write(dir.resolve("aug-" + n + ".rec"), records);
  }

  /** One sample as the provider gave it: its label (here the record's index) and its data row. */
  private record Sample(int label, float[] data) {}

  /** {@code epochs} passes over the shuffled, heavily augmented records: each pass's samples in order. */
  private static List<List<Sample>> epochs(Path rec, int threads, int epochs) {
    List<List<Sample>> out = new ArrayList<>();
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(5).dataShape(3, 4, 4)
        .shuffle(true).seed(11).augment(a -> a.randCrop(true).randMirror(true).maxRotateAngle(20).maxShearRatio(0.1f)
            .maxRandomScale(1.2f).minRandomScale(0.9f).maxAspectRatio(0.2f).randomH(10).randomS(20).randomL(20)
            .maxRandomContrast(0.3f).maxRandomIllumination(10).pcaNoise(0.1f).interMethod(10))
        .preprocessThreads(threads).build()) {
      for (int e = 0; e < epochs; e++) {
        List<Sample> pass = new ArrayList<>();
        for (NamedBatch b : p) {
          float[] labels = b.label().get(0).dup().data().asFloat();
          for (int r = 0; r < b.countSamples(); r++) {
            pass.add(new Sample((int) labels[r], row(b.data().get(0), r)));
          }
        }
        out.add(pass);
      }
    }
    return out;
  }

  /** Each label's first row in {@code pass}: the image's own epoch (the round-batch padding comes last). */
  private static java.util.Map<Integer, float[]> firstRows(List<Sample> pass) {
    java.util.Map<Integer, float[]> first = new java.util.HashMap<>();
    for (Sample s : pass) {
      first.putIfAbsent(s.label(), s.data());
    }
    return first;
  }

  @Test
  void seededAugmentationIsTheSameForAnyNumberOfThreads() {
    Path rec = augmentedSet(23);
    List<List<Sample>> one = epochs(rec, 1, 2);
    List<List<Sample>> three = epochs(rec, 3, 2);
    for (int e = 0; e < 2; e++) {
      assertEquals(one.get(e).size(), three.get(e).size());
      for (int i = 0; i < one.get(e).size(); i++) {
        assertEquals(one.get(e).get(i).label(), three.get(e).get(i).label(), "epoch " + e + ", row " + i);
        assertArrayEquals(one.get(e).get(i).data(), three.get(e).get(i).data(), "epoch " + e + ", row " + i);
      }
    }
    // The second epoch draws other augmentations for the same images. Each image is found by its
    // label in both epochs: with shuffling, the same row of two epochs holds two different images,
    // which differ whether or not the draws changed.
    java.util.Map<Integer, float[]> first = firstRows(one.get(0));
    java.util.Map<Integer, float[]> second = firstRows(one.get(1));
    int compared = 0;
    for (java.util.Map.Entry<Integer, float[]> image : first.entrySet()) {
      float[] again = second.get(image.getKey());
      if (again != null) {
        assertFalse(java.util.Arrays.equals(image.getValue(), again), "image " + image.getKey()
            + " was augmented the same way in both epochs");
        compared++;
      }
    }
    assertTrue(compared >= 20, "only " + compared + " of 23 images are in both epochs");
  }

  @Test
  void randomCropsAndMirrorsAreWindowsOfTheImage() {
    Path rec = TestImages.write(dir.resolve("windows.rec"), java.util.Collections.nCopies(40,
        ImageRecord.of(0, 0, TestImages.png(6, 8, 3, ImageRecordProviderTest::bgr))));
    Set<String> windows = new HashSet<>();
    for (int y0 = 0; y0 <= 2; y0++) {
      for (int x0 = 0; x0 <= 4; x0++) {
        int x = x0;
        windows.add(java.util.Arrays.toString(expectedChw(4, 4, y0, j -> x + j)));
        windows.add(java.util.Arrays.toString(expectedChw(4, 4, y0, j -> x + 3 - j)));
      }
    }
    Set<String> seen = new HashSet<>();
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(8).dataShape(3, 4, 4)
        .seed(3).augment(a -> a.randCrop(true).randMirror(true)).build()) {
      for (float[] r : dataRows(p)) {
        String s = java.util.Arrays.toString(r);
        assertTrue(windows.contains(s), "not a (mirrored) 4x4 window of the image: " + s);
        seen.add(s);
      }
    }
    assertTrue(seen.size() >= 10, "40 random crops of 30 possible windows gave only " + seen.size());
  }

  @Test
  void imageFolderLabelsClassesInSortedOrder() throws IOException {
    Path root = dir.resolve("folder");
    for (String cls : new String[] {"dog", "cat"}) {
      Files.createDirectories(root.resolve(cls));
    }
    Files.write(root.resolve("cat/b.png"), TestImages.png(4, 4, 1, (y, x, c) -> 1));
    Files.write(root.resolve("cat/a.png"), TestImages.png(4, 4, 1, (y, x, c) -> 2));
    Files.write(root.resolve("dog/z.png"), TestImages.png(4, 4, 1, (y, x, c) -> 3));
    Files.writeString(root.resolve("dog/notes.txt"), "not an image");
    try (ImageRecordProvider p = ImageRecordProvider.builder().imageFolder(root).batchSize(3).dataShape(1, 4, 4)
        .build()) {
      assertEquals(List.of("cat", "dog"), p.classes());
      NamedBatch b = p.iterator().next();
      assertEquals(3, b.countSamples());
      // cat/a.png, cat/b.png, dog/z.png
      assertEquals(2f, b.data().get(0).getFloat(0, 0, 0, 0));
      assertEquals(1f, b.data().get(0).getFloat(1, 0, 0, 0));
      assertEquals(3f, b.data().get(0).getFloat(2, 0, 0, 0));
      assertArrayEquals(new float[] {0, 0, 1}, b.label().get(0).dup().data().asFloat());
    }
    Files.createDirectories(root.resolve("empty"));
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> ImageRecordProvider.builder().imageFolder(root).batchSize(3).dataShape(1, 4, 4).build());
    assertEquals(root.toString(), e.file());
    assertTrue(e.getMessage().contains("class folder 'empty' holds no image files"), e.getMessage());
  }

  @Test
  void meanImageIsComputedSavedAndReloaded() throws IOException {
    Path rec = TestImages.write(dir.resolve("mean.rec"), List.of(
        ImageRecord.of(0, 0, TestImages.png(4, 4, 3, (y, x, c) -> 10)),
        ImageRecord.of(1, 0, TestImages.png(4, 4, 3, (y, x, c) -> 30 + y))));
    Path npy = dir.resolve("mean.npy");
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).normalize(n -> n.meanImg(npy)).batchSize(2)
        .dataShape(3, 4, 4).build()) {
      assertTrue(Files.exists(npy));
      List<float[]> rows = dataRows(p);
      // Mean at row y: (10 + 30 + y) / 2 = 20 + y / 2.
      for (int i = 0; i < 48; i++) {
        int y = (i % 16) / 4;
        assertEquals(10 - (20 + y / 2f), rows.get(0)[i], 1e-5f);
        assertEquals(30 + y - (20 + y / 2f), rows.get(1)[i], 1e-5f);
      }
    }
    // Reloaded (the file exists now), and refused for another output shape.
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).normalize(n -> n.meanImg(npy)).batchSize(2)
        .dataShape(3, 4, 4).build()) {
      assertEquals(-10f, dataRows(p).get(0)[0], 1e-5f);
    }
    String m = assertThrows(FileFormatException.class, () -> ImageRecordProvider.builder().pathImgrec(rec).normalize(n -> n.meanImg(npy))
        .batchSize(2).dataShape(3, 2, 2).build()).getMessage();
    assertTrue(m.contains("holds a mean image of shape (3, 4, 4); the output is (3, 2, 2)"), m);
  }

  @Test
  void theMeanImageIgnoresRandomAugmentation() throws IOException {
    // MXNet computes the mean image over centre crops: random crops, mirrors, rotation and a random
    // interpolation must not change it.
    Path plain = dir.resolve("plain.npy");
    Path random = dir.resolve("random.npy");
    one(b -> b.dataShape(3, 4, 4).normalize(n -> n.meanImg(plain))).build().close();
    one(b -> b.dataShape(3, 4, 4).augment(a -> a.randCrop(true).randMirror(true).maxRotateAngle(30).interMethod(10))
        .normalize(n -> n.meanImg(random))).build().close();
    assertArrayEquals(Files.readAllBytes(plain), Files.readAllBytes(random));
  }

  @Test
  void augmentAndNormalizeCallsAddUp() {
    // The first augment call's mirror and the second's crop window both apply; the later scale wins.
    try (ImageRecordProvider p = one(b -> b.dataShape(3, 4, 4).augment(a -> a.mirror(true))
        .augment(a -> a.cropYStart(0).cropXStart(4)).normalize(n -> n.scale(2)).normalize(n -> n.scale(3))).build()) {
      float[] expected = expectedChw(4, 4, 0, j -> 4 + (3 - j));
      for (int i = 0; i < expected.length; i++) {
        expected[i] *= 3;
      }
      assertArrayEquals(expected, dataRows(p).get(0));
    }
  }

  @Test
  void groupOptionsAreCheckedAtBuild() {
    assertEquals("ImageRecordProvider: fillValue must be 0..255, got 256", assertThrows(IllegalArgumentException.class,
        () -> one(b -> b.dataShape(3, 4, 4).augment(a -> a.fillValue(256))).build()).getMessage());
    assertEquals("ImageRecordProvider: pcaNoise works on colour images, not 1 channel(s)",
        assertThrows(IllegalArgumentException.class,
            () -> one(b -> b.dataShape(1, 4, 4).augment(a -> a.pcaNoise(0.1f))).build()).getMessage());
    assertEquals("ImageRecordProvider: std of channel G must be finite and non-zero, got 0.0",
        assertThrows(IllegalArgumentException.class,
            () -> one(b -> b.dataShape(3, 4, 4).normalize(n -> n.stdG(0))).build()).getMessage());
  }

  @Test
  void roundBatchIsTheDefaultAndPadsFromTheNextEpoch() {
    Path rec = augmentedSet(5);
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).batchSize(2).dataShape(3, 4, 4)
        .build()) {
      List<Integer> labels = new ArrayList<>();
      List<Integer> pads = new ArrayList<>();
      for (int e = 0; e < 2; e++) {
        BatchIterator<NamedBatch> it = p.iterator();
        while (it.hasNext()) {
          NamedBatch b = it.next();
          pads.add(b.pad());
          for (float f : b.label().get(0).dup().data().asFloat()) {
            labels.add((int) f);
          }
        }
      }
      // MXNet round_batch: epoch 0 is 0 1 | 2 3 | 4 0 (pad 1); epoch 1 skips the 0 it lent: 1 2 | 3 4.
      assertEquals(List.of(0, 1, 2, 3, 4, 0, 1, 2, 3, 4), labels);
      assertEquals(List.of(0, 0, 1, 0, 0), pads);
    }
  }

  @Test
  void settingsAreCheckedAtBuild() {
    assertEquals("ImageRecordProvider: set dataShape(channels, height, width), e.g. dataShape(3, 224, 224)",
        assertThrows(IllegalStateException.class,
            () -> ImageRecordProvider.builder().pathImgrec(oneImage(0)).batchSize(1).build()).getMessage());
    assertEquals("ImageRecordProvider: set pathImgrec(path) or imageFolder(path)", assertThrows(
        IllegalStateException.class, () -> ImageRecordProvider.builder().batchSize(1).dataShape(3, 4, 4).build())
        .getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> one(b -> b.dataShape(2, 4, 4)).build())
        .getMessage().contains("channels must be 1, 3 or 4"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> one(b -> b.dataShape(3, 4, 4).augment(a -> a.interMethod(5))).build())
        .getMessage().contains("interMethod must be 0..4, 9 or 10, got 5"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> one(b -> b.dataShape(1, 4, 4).augment(a -> a.randomH(3))).build()).getMessage().contains("colour images"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> one(b -> b.dataShape(3, 4, 4).augment(a -> a.randCrop(true).cropXStart(1))).build()).getMessage().contains("contradict"));
    assertThrows(IllegalArgumentException.class, () -> ImageRecordProvider.builder().dtype(DType.INT32));
  }
}
