package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.cli.CliTest.Run;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@code im2rec --shards} (a class folder and an MXNet record file written as a shard set of encoded
 * images) and {@code validate} on a shard set's image column. The reference for the written sets is
 * {@link ImageRecordProvider} reading the source itself with the same seed and augmentation; the
 * JPEGs are written here by javax.imageio.
 */
class CliImageShardsTest {
  private static final long SEED = 7;
  private static final Consumer<ImageRecordProvider.Augment> AUGMENT = a -> a.randCrop(true).randMirror(true);

  @TempDir Path dir;

  /** A {@code w}x{@code h} colour JPEG of noise (long entropy-coded data), written by javax.imageio. */
  static byte[] jpeg(long seed, int w, int h) throws IOException {
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_3BYTE_BGR);
    Random r = new Random(seed);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        img.setRGB(x, y, r.nextInt(1 << 24));
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertTrue(ImageIO.write(img, "jpg", out));
    return out.toByteArray();
  }

  /** photos/cat/{a,b}.jpg and photos/dog/{c,d,e}.jpg: labels 0, 0, 1, 1, 1 in sorted order. */
  private Path photos() throws IOException {
    Path root = dir.resolve("photos");
    String[][] files = {{"cat", "a.jpg"}, {"cat", "b.jpg"}, {"dog", "c.jpg"}, {"dog", "d.jpg"}, {"dog", "e.jpg"}};
    for (int i = 0; i < files.length; i++) {
      Path f = root.resolve(files[i][0]).resolve(files[i][1]);
      Files.createDirectories(f.getParent());
      Files.write(f, jpeg(i, 20 + 2 * i, 16 + i));
    }
    return root;
  }

  /** Every batch of two epochs: each one's data values, then its labels. */
  private static List<float[]> batches(Iterable<NamedBatch> provider) {
    List<float[]> out = new ArrayList<>();
    for (int e = 0; e < 2; e++) {
      for (NamedBatch b : provider) {
        out.add(floats(b.get("data")));
        out.add(floats(b.get("softmax_label")));
      }
    }
    return out;
  }

  private static float[] floats(INDArray a) {
    return a.castTo(DataType.FLOAT).dup('c').reshape(a.length()).toFloatVector();
  }

  private static ImageRecordProvider.Builder records() {
    return ImageRecordProvider.builder().dataShape(3, 8, 8).batchSize(2).seed(SEED).shuffle(false)
        .lastBatch(LastBatch.PARTIAL).augment(AUGMENT).preprocessThreads(2);
  }

  private static List<float[]> shardBatches(Path set, int readers) {
    try (ShardProvider p = ShardProvider.builder(set.toString()).batchSize(2).seed(SEED).shuffle(false)
        .lastBatch(LastBatch.PARTIAL).augment("data", AUGMENT).readers(readers).build()) {
      return batches(p);
    }
  }

  private static void assertSameBatches(List<float[]> expected, List<float[]> got) {
    assertEquals(expected.size(), got.size());
    for (int i = 0; i < got.size(); i++) {
      assertArrayEquals(expected.get(i), got.get(i), "array " + i);
    }
  }

  @Test
  void aClassFolderWrittenAsAShardSetGivesTheFoldersBatches() throws IOException {
    Path photos = photos();
    Path set = dir.resolve("out").resolve("photo-shards");
    Run r = CliTest.run("im2rec", "--shards", "--shape", "3,8,8", "--pass-through", "--samples-per-file", "2",
        set.toString(), photos.toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().startsWith("packed 5 images into shard set "), r.out());
    assertTrue(r.out().contains(": 5 samples in 3 files, classes [cat, dog]"), r.out());
    // The packed record file was temporary: only the set is left beside it.
    try (Stream<Path> s = Files.list(set.getParent())) {
      assertEquals(List.of(set), s.toList());
    }

    List<float[]> expected;
    try (ImageRecordProvider p = records().imageFolder(photos).build()) {
      expected = batches(p);
    }
    // Not vacuous: the crop and mirror draws differ between the epochs, and the labels are the folders'.
    assertNotEquals(Arrays.toString(expected.get(0)), Arrays.toString(expected.get(6)));
    float[] labels = new float[5];
    for (int b = 0; b < 3; b++) {
      System.arraycopy(expected.get(2 * b + 1), 0, labels, 2 * b, expected.get(2 * b + 1).length);
    }
    Arrays.sort(labels);
    assertArrayEquals(new float[] {0, 0, 1, 1, 1}, labels);
    assertSameBatches(expected, shardBatches(set, 1));
    assertSameBatches(expected, shardBatches(set, 3));

    Run validate = CliTest.run("validate", set.toString());
    assertEquals(0, validate.code(), validate.out() + validate.err());
    assertTrue(validate.out().contains(set + ": ok (shards)"), validate.out());
  }

  @Test
  void theImagesArePackedWithIm2recsSettings() throws IOException {
    // Without --pass-through the images are re-encoded as for the .rec output, here resized to 10
    // pixels on the shorter side: the set gives the batches of the .rec that im2rec writes.
    Path photos = photos();
    Run rec = CliTest.run("im2rec", "--resize", "10", dir.resolve("small").toString(), photos.toString());
    assertEquals(0, rec.code(), rec.err());
    Path set = dir.resolve("small-shards");
    Run r = CliTest.run("im2rec", "--shards", "--shape", "3,8,8", "--resize", "10", set.toString(), photos.toString());
    assertEquals(0, r.code(), r.err());
    List<float[]> expected;
    try (ImageRecordProvider p = records().pathImgrec(dir.resolve("small.rec")).build()) {
      expected = batches(p);
    }
    List<float[]> original;
    try (ImageRecordProvider p = records().imageFolder(photos).build()) {
      original = batches(p);
    }
    assertNotEquals(Arrays.toString(original.get(0)), Arrays.toString(expected.get(0)), "premise: --resize matters");
    assertSameBatches(expected, shardBatches(set, 2));
  }

  @Test
  void anMxnetRecordFileKeepsItsPackedLabelsAndInspectNamesTheImageColumn() throws IOException {
    Path rec = dir.resolve("boxes.rec");
    Path idx = dir.resolve("boxes.idx");
    try (RecordIOWriter w = RecordIOWriter.create(rec, idx)) {
      for (int i = 0; i < 6; i++) {
        w.write(i, ImageRecord.of(i, new float[] {i, i + 0.5f, -i}, jpeg(10 + i, 18 + i, 14 + i)).encode());
      }
    }
    Path set = dir.resolve("box-shards");
    Run r = CliTest.run("im2rec", "--shards", "--shape", "3,8,8", set.toString(), rec.toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().startsWith("packed 6 images into shard set "), r.out());

    List<float[]> expected;
    try (ImageRecordProvider p = records().pathImgrec(rec).pathImgidx(idx).labelWidth(3).build()) {
      expected = batches(p);
    }
    assertSameBatches(expected, shardBatches(set, 2));
    try (ShardProvider p = ShardProvider.builder(set.toString()).batchSize(6).build()) {
      INDArray labels = p.iterator().next().get("softmax_label");
      for (int i = 0; i < 6; i++) {
        assertArrayEquals(new float[] {i, i + 0.5f, -i}, labels.getRow(i).toFloatVector());
      }
    }

    Run inspect = CliTest.run("inspect", set.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(inspect.out().matches("(?s).*column data: +data, \\(3, 8, 8\\) FLOAT32 per sample, stored as encoded "
        + "images \\(IMAGE_RGB\\)\n.*"), inspect.out());
    assertTrue(inspect.out().matches("(?s).*column softmax_label: +label, \\(3,\\) FLOAT32 per sample\n.*"),
        inspect.out());
  }

  @Test
  void aCorruptImageAnOccupiedOutputAndMissingSettingsAreRefused() throws IOException {
    Path photos = photos();
    byte[] good = Files.readAllBytes(photos.resolve("dog/d.jpg"));
    Files.write(photos.resolve("dog/d.jpg"), Arrays.copyOf(good, good.length - 30));
    Path set = dir.resolve("bad-shards");
    Run bad = CliTest.run("im2rec", "--shards", "--shape", "3,8,8", set.toString(), photos.toString());
    assertEquals(3, bad.code(), bad.out() + bad.err());
    assertTrue(bad.err().startsWith("minibatch im2rec: " + photos.resolve("dog/d.jpg") + ": corrupt JPEG: "), bad.err());
    assertFalse(Files.exists(set.resolve("shards.index")));
    try (Stream<Path> s = Files.list(dir)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".im2rec-")), "temporary folder left");
    }
    Files.write(photos.resolve("dog/d.jpg"), good);

    Path occupied = Files.createDirectories(dir.resolve("occupied"));
    Files.writeString(occupied.resolve("notes.txt"), "mine");
    Run taken = CliTest.run("im2rec", "--shards", "--shape", "3,8,8", occupied.toString(), photos.toString());
    assertEquals(3, taken.code(), taken.err());
    assertEquals("minibatch im2rec: cannot write the shard set to " + occupied + ": it holds files already "
        + "(notes.txt); a shard set is written into a new or empty folder\n", taken.err());

    Run noShape = CliTest.run("im2rec", "--shards", set.toString(), photos.toString());
    assertEquals(2, noShape.code(), noShape.err());
    assertTrue(noShape.err().startsWith("--shards needs --shape C,H,W"), noShape.err());
    Run twoChannels = CliTest.run("im2rec", "--shards", "--shape", "2,8,8", set.toString(), photos.toString());
    assertEquals(2, twoChannels.code(), twoChannels.err());
    assertTrue(twoChannels.err().startsWith("Invalid value for option '--shape': 2,8,8: "), twoChannels.err());
    Run shapeAlone = CliTest.run("im2rec", "--shape", "3,8,8", dir.resolve("p").toString(), photos.toString());
    assertEquals(2, shapeAlone.code(), shapeAlone.err());
    assertTrue(shapeAlone.err().startsWith("--shape goes with --shards"), shapeAlone.err());

    Path rec = dir.resolve("one.rec");
    try (RecordIOWriter w = RecordIOWriter.create(rec, dir.resolve("one.idx"))) {
      w.write(0, ImageRecord.of(0, 1, good).encode());
    }
    Run packing = CliTest.run("im2rec", "--shards", "--shape", "3,8,8", "--resize", "10", set.toString(),
        rec.toString());
    assertEquals(2, packing.code(), packing.err());
    assertTrue(packing.err().startsWith("--resize: " + rec + " is a record file, its images converted as they are "
        + "packed in it"), packing.err());
    assertFalse(Files.exists(set));
  }

  /** Where the entropy-coded data of a baseline JPEG's (only) scan starts: after its SOS segment. */
  private static int scanStart(byte[] jpeg) {
    for (int i = 2; i + 3 < jpeg.length; i++) {
      if ((jpeg[i] & 0xff) == 0xFF && (jpeg[i + 1] & 0xff) == 0xDA) {
        return i + 2 + ((jpeg[i + 2] & 0xff) << 8 | (jpeg[i + 3] & 0xff));
      }
    }
    throw new AssertionError("no SOS marker");
  }

  @Test
  void validateDecodesEveryImageOfAShardSetAndNamesEachBadOne() throws IOException {
    byte[] truncated = jpeg(2, 64, 48);
    // 30 bytes off the end: the EOI and the last 28 bytes of entropy-coded data.
    truncated = Arrays.copyOf(truncated, truncated.length - 30);
    byte[] flipped = jpeg(4, 64, 48);
    // One byte in the middle of the entropy-coded data becomes 0xFF before a byte that makes it a
    // marker (not 0x00, a stuffed 0xFF, nor a restart marker): the scan's data ends there, before its
    // last MCU, libjpeg's "premature end of data segment" that the JPEG check documents.
    int k = (scanStart(flipped) + flipped.length - 2) / 2;
    while ((flipped[k - 1] & 0xff) == 0xFF || (flipped[k] & 0xff) == 0xFF || flipped[k + 1] == 0
        || (flipped[k + 1] & 0xF8) == 0xD0 || (flipped[k + 1] & 0xff) == 0xFF) {
      k++;
    }
    flipped[k] = (byte) 0xFF;
    List<EncodedImages.Image> images = List.of(new EncodedImages.Image(jpeg(1, 64, 48), new float[] {0}),
        new EncodedImages.Image(truncated, new float[] {1}), new EncodedImages.Image(jpeg(3, 64, 48), new float[] {0}),
        new EncodedImages.Image(flipped, new float[] {1}));
    Path set = dir.resolve("damaged");
    ImageShardWriter.builder().dataShape(3, 16, 16).writer(ShardWriter.builder().samplesPerFile(2).build()).build()
        .write(images, set.toString());

    Run r = CliTest.run("validate", set.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(3, lines.size(), r.out());
    String first = set.toUri() + "part-00000.parquet: row 1 of the shard set (1 of the file), column 'data': corrupt "
        + "JPEG: the entropy-coded data ends at the end of the " + truncated.length + " bytes in MCU ";
    assertTrue(lines.get(0).startsWith(first), lines.get(0));
    assertTrue(lines.get(0).endsWith("(libjpeg: premature end of data segment)"), lines.get(0));
    // The marker this test made, where it made it (offsets count from the image's first byte).
    String marker = String.format("corrupt JPEG: the entropy-coded data ends at marker 0xFF%02X at byte %d in MCU ",
        flipped[k + 1] & 0xff, k);
    assertTrue(lines.get(1).startsWith(set.toUri() + "part-00001.parquet: row 3 of the shard set (1 of the file), "
        + "column 'data': " + marker), lines.get(1));
    assertTrue(lines.get(1).endsWith("(libjpeg: premature end of data segment)"), lines.get(1));
    assertEquals(set + ": 2 problems", lines.get(2));

    Run one = CliTest.run("validate", "--max-problems", "1", set.toString());
    assertEquals(1, one.code(), one.out());
    assertEquals(2, one.out().lines().count(), one.out());
  }
}
