package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.cli.CliTest.Run;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * im2rec, then inspect, validate and bench on the record file it wrote; the images are PNGs written
 * here with javax.imageio (not OpenCV), so the expected sizes and counts are independent of the
 * code under test.
 */
class CliImagesTest {
  @TempDir Path dir;

  /** images/ant: two 5x4 gray PNGs; images/bee: one. */
  private Path folder() throws IOException {
    Path root = dir.resolve("images");
    String[][] files = {{"ant", "a.png"}, {"ant", "b.png"}, {"bee", "c.png"}};
    for (int i = 0; i < files.length; i++) {
      Path d = Files.createDirectories(root.resolve(files[i][0]));
      BufferedImage img = new BufferedImage(5, 4, BufferedImage.TYPE_BYTE_GRAY);
      for (int y = 0; y < 4; y++) {
        for (int x = 0; x < 5; x++) {
          img.getRaster().setSample(x, y, 0, 40 * i + x + y);
        }
      }
      ImageIO.write(img, "png", d.resolve(files[i][1]).toFile());
    }
    return root;
  }

  @Test
  void im2recThenInspectValidateAndBench() throws IOException {
    Path prefix = dir.resolve("out/train");
    Run packed = CliTest.run("im2rec", prefix.toString(), folder().toString(), "--encoding", ".png", "--color", "-1",
        "--num-thread", "2");
    assertEquals(0, packed.code(), packed.err());
    assertTrue(packed.out().startsWith("packed 3 images into " + prefix + ".rec"), packed.out());
    assertTrue(packed.out().contains("classes [ant, bee]"), packed.out());
    Path rec = Path.of(prefix + ".rec");

    Run inspect = CliTest.run("inspect", rec.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(inspect.out().contains("RecordIO"), inspect.out());
    assertEquals(2, CliTest.histogramCount(inspect.out(), "0"));
    assertEquals(1, CliTest.histogramCount(inspect.out(), "1"));
    assertTrue(inspect.out().contains("#0: id 0, label 0, PNG 5x4x1"), inspect.out());

    Run ok = CliTest.run("validate", rec.toString());
    assertEquals(0, ok.code(), ok.out() + ok.err());

    Run bench = CliTest.run("bench", "--batch", "2", rec.toString());
    assertEquals(0, bench.code(), bench.err());
  }

  @Test
  void aFolderOfClassFoldersIsInspectedValidatedAndBenchedAsItIs() throws IOException {
    Path root = folder();
    Run inspect = CliTest.run("inspect", root.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(inspect.out().contains("image folder"), inspect.out());
    assertEquals(2, CliTest.histogramCount(inspect.out(), "ant"));
    assertEquals(1, CliTest.histogramCount(inspect.out(), "bee"));

    Run bench = CliTest.run("bench", "--batch", "2", "--epochs", "1", root.toString());
    assertEquals(0, bench.code(), bench.err());
    assertTrue(bench.out().contains("3 samples in 2 batches"), bench.out());

    Files.writeString(root.resolve("bee/d.png"), "not a PNG");
    Run bad = CliTest.run("validate", root.toString());
    assertEquals(1, bad.code(), bad.out() + bad.err());
    assertTrue(bad.out().contains(root.resolve("bee/d.png") + ": "), bad.out());
    assertTrue(bad.out().contains(root + ": 1 problem"), bad.out());
  }

  @Test
  void validateReportsEveryBadRecordAndTheCorruptTail() throws IOException {
    // Two records written by hand: a good PNG record and one whose image is junk, then 8 junk bytes.
    Run packed = CliTest.run("im2rec", dir.resolve("good").toString(), folder().toString(), "--encoding", ".png",
        "--pass-through");
    assertEquals(0, packed.code(), packed.err());
    byte[] first = Files.readAllBytes(dir.resolve("good.rec"));
    int firstLength = 8 + ((ByteBuffer.wrap(first).order(ByteOrder.LITTLE_ENDIAN).getInt(4) & 0x1fffffff) + 3 & ~3);
    ByteBuffer junkRecord = ByteBuffer.allocate(8 + 32).order(ByteOrder.LITTLE_ENDIAN);
    junkRecord.putInt(0xCED7230A).putInt(32).putInt(0).putFloat(1).putLong(77).putLong(0).putLong(0x0102030405060708L);
    ByteBuffer file = ByteBuffer.allocate(firstLength + junkRecord.capacity() + 8);
    file.put(first, 0, firstLength).put(junkRecord.array()).put(new byte[] {9, 9, 9, 9, 9, 9, 9, 9});
    Path bad = Files.write(dir.resolve("bad.rec"), file.array());
    Run r = CliTest.run("validate", bad.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.out().contains(bad + ": offset " + (firstLength + 40) + ": expected the magic word"), r.out());
    assertTrue(r.out().contains(bad + ": record 1 at offset " + firstLength + " (image id 77)"), r.out());
    assertTrue(r.out().contains("OpenCV cannot decode the 8 image bytes"), r.out());
    assertTrue(r.out().contains(bad + ": 2 problems"), r.out());
  }

  /** A 5x4 gray PNG, written by javax.imageio. */
  private static byte[] png(int shade) throws IOException {
    BufferedImage img = new BufferedImage(5, 4, BufferedImage.TYPE_BYTE_GRAY);
    for (int y = 0; y < 4; y++) {
      for (int x = 0; x < 5; x++) {
        img.getRaster().setSample(x, y, 0, shade + x + y);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(img, "png", out);
    return out.toByteArray();
  }

  /**
   * One image record written by hand from the format (docs/images.md, MXNet's IRHeader): magic,
   * length, then flag, header label, id, id2, {@code labels.length} float32 labels when the flag is
   * above 0, the image; zero padding to 4 bytes.
   */
  private static byte[] record(long id, float headerLabel, float[] labels, byte[] image) {
    int length = 24 + 4 * labels.length + image.length;
    ByteBuffer b = ByteBuffer.allocate(8 + (length + 3 & ~3)).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0xCED7230A).putInt(length).putInt(labels.length).putFloat(headerLabel).putLong(id).putLong(0);
    for (float l : labels) {
      b.putFloat(l);
    }
    return b.put(image).array();
  }

  /** A .rec of {@code widths.length} records, record i packing {@code widths[i]} labels (0: one in the header). */
  private Path packed(String name, int... widths) throws IOException {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    for (int i = 0; i < widths.length; i++) {
      float[] labels = new float[widths[i]];
      for (int k = 0; k < labels.length; k++) {
        labels[k] = 10 * i + k;
      }
      file.write(record(i, i, labels, png(40 * i)));
    }
    return Files.write(dir.resolve(name), file.toByteArray());
  }

  @Test
  void benchReadsPackedLabelsWithTheWidthInspectReports() throws IOException {
    // Three records of 9 packed labels each (MXNet's detection layout), fewer than the default batch.
    Path rec = packed("packed.rec", 9, 9, 9);
    Run inspect = CliTest.run("inspect", rec.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertEquals(3, CliTest.histogramCount(inspect.out(), "9 (packed)"));
    assertTrue(inspect.out().contains("#1: id 1, labels [10, 11, 12, 13, 14, 15, 16, 17, 18], PNG 5x4x1"),
        inspect.out());

    Run bench = CliTest.run("bench", "--warmup", "0", "--epochs", "1", rec.toString());
    assertEquals(0, bench.code(), bench.err());
    assertTrue(bench.out().contains("provider: ImageRecordProvider, data (3, 1, 4, 5) FLOAT32, softmax_label (3, 9) "
        + "FLOAT32"), bench.out());
    assertTrue(bench.out().contains("epoch 1:  3 samples in 1 batches"), bench.out());
    // The batch is clamped to the file, said in one line on stderr, in the user's words.
    assertEquals(List.of("minibatch bench: " + rec + " holds 3 samples, fewer than --batch 128: measuring batches of 3"),
        bench.err().lines().toList());
  }

  @Test
  void aRecordTheReaderRejectsWhileBenchIteratesIsOneLineAndExitThree() throws IOException {
    // Record 0 packs 9 labels, so the provider's label width is 9; record 2 packs 4.
    Path rec = packed("mixed.rec", 9, 9, 4, 9);
    Run bench = CliTest.run("bench", "--batch", "2", "--warmup", "0", "--epochs", "1", rec.toString());
    assertEquals(3, bench.code(), bench.out() + bench.err());
    List<String> lines = bench.err().lines().toList();
    assertEquals(1, lines.size(), bench.err());
    assertTrue(lines.get(0).startsWith("minibatch bench: " + rec + ": record 2 "), lines.get(0));
    assertTrue(lines.get(0).contains("packs 4 labels"), lines.get(0));

    Run verbose = CliTest.run("bench", "--verbose", "--batch", "2", "--warmup", "0", "--epochs", "1", rec.toString());
    assertEquals(3, verbose.code());
    assertTrue(verbose.err().lines().findFirst().orElseThrow().equals(lines.get(0)), verbose.err());
    assertTrue(verbose.err().contains("\tat dev.minibatch."), "--verbose adds the stack trace: " + verbose.err());
  }

  @Test
  void benchNamesABadRecordByFileOffsetAndImageIdAsValidateDoes() throws IOException {
    // Record 0 (image id 77) holds 8 bytes that are no image, record 1 (image id 78) a PNG.
    byte[] junk = record(77, 0, new float[0], new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    byte[] good = record(78, 1, new float[0], png(40));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(junk);
    bytes.write(good);
    Path first = Files.write(dir.resolve("first.rec"), bytes.toByteArray());
    Run validate = CliTest.run("validate", first.toString());
    assertEquals(1, validate.code(), validate.out() + validate.err());
    String problem = validate.out().lines().findFirst().orElseThrow();
    assertTrue(problem.startsWith(first + ": record 0 at offset 0 (image id 77): OpenCV cannot decode the 8 image "
        + "bytes"), problem);
    // bench reads record 0 to learn the image size: the same line, on stderr.
    Run bench = CliTest.run("bench", "--batch", "2", "--warmup", "0", "--epochs", "1", first.toString());
    assertEquals(3, bench.code(), bench.out() + bench.err());
    assertEquals(List.of("minibatch bench: " + problem), bench.err().lines().toList());

    // The same junk as record 1, after the PNG (at offset good.length): met while bench iterates.
    bytes.reset();
    bytes.write(good);
    bytes.write(record(77, 0, new float[0], new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    Path second = Files.write(dir.resolve("second.rec"), bytes.toByteArray());
    Run validate2 = CliTest.run("validate", second.toString());
    String at = second + ": record 1 at offset " + good.length + " (image id 77): ";
    assertTrue(validate2.out().startsWith(at + "OpenCV cannot decode the 8 image bytes"), validate2.out());
    Run bench2 = CliTest.run("bench", "--batch", "2", "--warmup", "0", "--epochs", "1", second.toString());
    assertEquals(3, bench2.code(), bench2.out() + bench2.err());
    List<String> lines = bench2.err().lines().toList();
    assertEquals(1, lines.size(), bench2.err());
    assertTrue(lines.get(0).startsWith("minibatch bench: " + at + "OpenCV cannot decode the 8 image bytes"),
        lines.get(0));
  }

  @Test
  void im2recOnAnEmptyClassFolderIsOneLineNamingItAndExitThree() throws IOException {
    Path root = folder();
    Files.createDirectories(root.resolve("cat"));
    Run r = CliTest.run("im2rec", dir.resolve("out/train").toString(), root.toString());
    assertEquals(3, r.code(), r.out() + r.err());
    List<String> lines = r.err().lines().toList();
    assertEquals(1, lines.size(), r.err());
    assertTrue(lines.get(0).startsWith("minibatch im2rec: " + root + ": class folder 'cat' holds no image"),
        lines.get(0));
    // A setting out of range is still a usage error, with picocli's usage.
    Run usage = CliTest.run("im2rec", "--quality", "500", dir.resolve("out/train").toString(), root.toString());
    assertEquals(2, usage.code(), usage.err());
    assertTrue(usage.err().contains("quality") && usage.err().contains("Usage:"), usage.err());
  }

  /** The command line im2rec has, now that the runtime no longer carries a second one. */
  @Test
  void im2recHelpListsImageRecOptionsAndArgumentMistakesAreUsageErrors() {
    Run help = CliTest.run("im2rec", "--help");
    assertEquals(0, help.code(), help.err());
    for (String option : List.of("--list", "--resize", "--center-crop", "--encoding", "--quality", "--color",
        "--pass-through", "--pack-label", "--num-thread", "--shuffle")) {
      assertTrue(help.out().contains(option), option + " in " + help.out());
    }
    assertEquals(2, CliTest.run("im2rec", "only-one").code());
    assertEquals(2, CliTest.run("im2rec", "p", "r", "--bogus").code());
  }
}
