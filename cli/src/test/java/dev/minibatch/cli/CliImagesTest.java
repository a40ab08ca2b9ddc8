package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.cli.CliTest.Run;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
