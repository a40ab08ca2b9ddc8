package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JPEG cut inside its entropy-coded data, which OpenCV decodes without an error (the rows it has
 * no data for come out grey), is an error naming its record in {@code validate}, in the provider,
 * and in im2rec.
 */
class CorruptJpegTest {
  @TempDir Path dir;

  private static byte[] jpeg(long seed) {
    try (Mat m = JpegSamples.picture(24, 32, 3, seed)) {
      return JpegSamples.opencv(m, IMWRITE_JPEG_QUALITY, 90);
    }
  }

  /** The JPEG cut 40 bytes before its end: the last MCUs have no data, and there is no EOI. */
  private static byte[] truncated(long seed) {
    byte[] whole = jpeg(seed);
    return JpegSamples.cut(whole, whole.length - 40, whole.length);
  }

  /** Three records, ids 10, 11, 12; the second holds the truncated JPEG. */
  private Path records() {
    return TestImages.write(dir.resolve("cars.rec"), List.of(ImageRecord.of(10, 0, jpeg(1)),
        ImageRecord.of(11, 1, truncated(2)), ImageRecord.of(12, 0, jpeg(3))));
  }

  @Test
  void openCvDecodesTheTruncatedJpegWithoutAnError() {
    // What the check is for: OpenCV gives no sign.
    byte[] t = truncated(2);
    ByteBuffer direct = ByteBuffer.allocateDirect(t.length).put(t).flip();
    OpenCv.require();
    try (org.bytedeco.javacpp.BytePointer p = new org.bytedeco.javacpp.BytePointer(direct);
        Mat image = OpenCv.decode(p, 0, t.length, org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR)) {
      assertFalse(image.empty());
      assertEquals(24, image.rows());
    }
  }

  @Test
  void probeNamesTheProblemAndKeepsTheSize() {
    byte[] t = truncated(2);
    ImageProbe probe = ImageProbe.of(ByteBuffer.wrap(t));
    assertEquals("JPEG 32x24x3 (corrupt)", probe.toString());
    assertTrue(probe.problem().startsWith("corrupt JPEG: the entropy-coded data ends at the end of the " + t.length
        + " bytes in MCU "), probe.problem());
    assertTrue(probe.problem().endsWith(" (libjpeg: premature end of data segment)"), probe.problem());
    assertNull(ImageProbe.of(ByteBuffer.wrap(jpeg(1))).problem());
  }

  @Test
  void validateNamesTheRecordItsOffsetAndWhatIsWrong() {
    Path rec = records();
    long offset;
    try (RecordIOFile f = RecordIOFile.builder(rec).open()) {
      offset = f.offset(1);
    }
    Format.Problems problems = new Format.Problems(10);
    ImageRecordProvider.format().validate(rec, Format.Options.defaults(), problems);
    assertEquals(1, problems.list().size(), problems.list().toString());
    Format.Problems.Problem p = problems.list().get(0);
    assertEquals(rec + ": record 1 at offset " + offset + " (image id 11)", p.location());
    assertTrue(p.message().startsWith("corrupt JPEG: the entropy-coded data ends at the end of the "), p.message());
    assertTrue(p.message().contains("premature end of data segment"), p.message());
  }

  @Test
  void theProviderFailsNamingTheRecord() {
    Path rec = records();
    long offset;
    try (RecordIOFile f = RecordIOFile.builder(rec).open()) {
      offset = f.offset(1);
    }
    for (int threads : new int[] {1, 2}) {
      try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).dataShape(3, 24, 32).batchSize(1)
          .preprocessThreads(threads).build()) {
        StageFailedException e = assertThrows(StageFailedException.class, () -> {
          for (NamedBatch b : p) {
            b.countSamples();
          }
        });
        FileFormatException f = assertInstanceOf(FileFormatException.class, e.getCause());
        assertEquals(rec.toString(), f.file());
        assertTrue(f.getMessage().startsWith(rec + ": record 1 at offset " + offset + " (image id 11): corrupt JPEG: "
            + "the entropy-coded data ends at the end of the "), f.getMessage());
      }
    }
  }

  @Test
  void aGoodRecordFileReadsEpochAfterEpoch() {
    Path rec = TestImages.write(dir.resolve("good.rec"), List.of(ImageRecord.of(0, 0, jpeg(1)),
        ImageRecord.of(1, 1, jpeg(2)), ImageRecord.of(2, 0, jpeg(3))));
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).dataShape(3, 24, 32).batchSize(3)
        .build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        int n = 0;
        for (NamedBatch b : p) {
          n += b.countSamples();
        }
        assertEquals(3, n);
      }
    }
  }

  @Test
  void aFolderOfImagesIsValidatedAndReadTheSameWay() throws IOException {
    Path root = dir.resolve("pets");
    Files.createDirectories(root.resolve("cat"));
    Files.write(root.resolve("cat/a.jpg"), jpeg(1));
    Files.write(root.resolve("cat/b.jpg"), truncated(2));
    Format.Problems problems = new Format.Problems(10);
    ImageRecordProvider.folderFormat().validate(root, Format.Options.defaults(), problems);
    assertEquals(1, problems.list().size(), problems.list().toString());
    assertEquals(root.resolve("cat/b.jpg").toString(), problems.list().get(0).location());
    assertTrue(problems.list().get(0).message().contains("premature end of data segment"));
    try (BatchProvider<? extends Batch> p = ImageRecordProvider.builder().imageFolder(root).dataShape(3, 24, 32)
        .batchSize(1).preprocessThreads(1).build()) {
      StageFailedException e = assertThrows(StageFailedException.class, () -> {
        for (Batch b : p) {
          b.countSamples();
        }
      });
      assertTrue(e.getCause().getMessage().startsWith(root.resolve("cat/b.jpg") + ": corrupt JPEG: "),
          e.getCause().getMessage());
    }
  }

  @Test
  void im2recStopsAtTheCorruptJpegEvenWhenPassingBytesThrough() throws IOException {
    Path root = dir.resolve("images");
    Files.createDirectories(root.resolve("ant"));
    Files.write(root.resolve("ant/0.jpg"), jpeg(1));
    Files.write(root.resolve("ant/1.jpg"), truncated(2));
    for (boolean passThrough : new boolean[] {false, true}) {
      Im2Rec run = Im2Rec.builder().folder(root).output(dir.resolve("out/p" + passThrough)).passThrough(passThrough)
          .build();
      FileFormatException e = assertThrows(FileFormatException.class, run::run);
      assertEquals(root.resolve("ant/1.jpg").toString(), e.file());
      assertTrue(e.getMessage().contains(": corrupt JPEG: the entropy-coded data ends at the end of the "),
          e.getMessage());
      assertTrue(e.getMessage().endsWith("(libjpeg: premature end of data segment) (listed as index 1)"),
          e.getMessage());
    }
  }
}
