package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.cli.CliTest.Run;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} and {@code inspect} on a record file whose second JPEG is cut inside its
 * entropy-coded data: OpenCV decodes that JPEG without an error, so it is the JPEG check that names
 * it. The JPEGs are written here by javax.imageio, not by OpenCV.
 */
class CliCorruptJpegTest {
  @TempDir Path dir;

  /** A 16x12 colour JPEG of noise (so that its entropy-coded data is long), written by javax.imageio. */
  static byte[] jpeg(long seed) throws IOException {
    BufferedImage img = new BufferedImage(16, 12, BufferedImage.TYPE_3BYTE_BGR);
    Random r = new Random(seed);
    for (int y = 0; y < 12; y++) {
      for (int x = 0; x < 16; x++) {
        img.setRGB(x, y, r.nextInt(1 << 24));
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(img, "jpg", out);
    return out.toByteArray();
  }

  @Test
  void validateNamesTheRecordWhoseJpegIsCutShort() throws IOException {
    byte[] second = jpeg(2);
    // 30 bytes off the end: the EOI and the last 28 bytes of entropy-coded data.
    byte[] cut = Arrays.copyOf(second, second.length - 30);
    Path rec = dir.resolve("cars.rec");
    try (RecordIOWriter w = RecordIOWriter.create(rec, dir.resolve("cars.idx"))) {
      w.write(0, ImageRecord.of(0, 0, jpeg(1)).encode());
      w.write(1, ImageRecord.of(1, 1, cut).encode());
      w.write(2, ImageRecord.of(2, 0, jpeg(3)).encode());
    }
    long offset;
    try (RecordIOFile f = RecordIOFile.builder(rec).open()) {
      offset = f.offset(1);
    }
    Run r = CliTest.run("validate", rec.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.out().contains(rec + ": record 1 at offset " + offset + " (image id 1): corrupt JPEG: the "
        + "entropy-coded data ends at the end of the " + cut.length + " bytes in MCU "), r.out());
    assertTrue(r.out().contains("(libjpeg: premature end of data segment)"), r.out());
    assertTrue(r.out().contains(rec + ": 1 problem"), r.out());

    Run inspect = CliTest.run("inspect", rec.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(inspect.out().contains("#1: id 1, label 1, JPEG 16x12x3 (corrupt)"), inspect.out());
    assertTrue(inspect.out().contains("#0: id 0, label 0, JPEG 16x12x3, "), inspect.out());
  }
}
