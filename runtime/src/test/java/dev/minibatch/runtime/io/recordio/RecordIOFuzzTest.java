package dev.minibatch.runtime.io.recordio;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.internal.settings.Seeds;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.FuzzChecks;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordProblem;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Fuzzes the RecordIO reader and the image provider: a strict open and read of every record as an
 * image record, then one epoch of {@code ImageRecordProvider} (OpenCV decodes each image on two
 * reader threads), each ending in success or a named {@code FileFormatException}; and a {@code
 * skipCorrupt} open, which must never fail on
 * content and must account for every byte (the records read plus the skipped stretches). Seeds:
 * dmlc's {@code sample.rec}, a small file with split records, and image records holding a
 * PNG and a JPEG, under {@code
 * RecordIOFuzzTestInputs/readRecords}. Without {@code JAZZER_FUZZ} this replays the seeds and every
 * committed finding; see docs/bad-input.md to fuzz.
 */
class RecordIOFuzzTest {
  private static final Path FILE = FuzzChecks.tempDir("recordio-fuzz").resolve("fuzzed.rec");

  @FuzzTest(maxDuration = "5m")
  void readRecords(byte[] input) {
    FuzzChecks.write(FILE, input);
    FuzzChecks.check(FILE, input.length, 1, () -> {
      int records;
      try (RecordIOFile rec = RecordIOFile.open(FILE)) {
        ByteBuffer buffer = null;
        for (int i = 0; i < rec.records(); i++) {
          buffer = rec.read(i, buffer);
          ImageRecord.check(buffer, FILE.toString(), i, rec.offset(i));
        }
        records = rec.records();
      }
      if (records > 0) {
        // Decode and augment every image on two reader threads: OpenCV's decoders see the fuzzed
        // bytes, and every failure must arrive as a named error.
        try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(FILE).dataShape(1, 4, 4).batchSize(3).lastBatch(LastBatch.PARTIAL)
            .preprocessThreads(2).augment(a -> a.randCrop(true)).seed(1).build()) {
          FuzzChecks.oneEpoch(p);
        } catch (StageFailedException e) {
          if (!(e.getCause() instanceof FileFormatException)) {
            throw e;
          }
          throw (FileFormatException) e.getCause();
        }
      }
    });
    FuzzChecks.check(FILE, input.length, 1, () -> {
      try (RecordIOFile rec = RecordIOFile.builder(FILE).skipCorrupt(true).open()) {
        long accounted = 0;
        ByteBuffer buffer = null;
        for (int i = 0; i < rec.records(); i++) {
          buffer = rec.read(i, buffer);
        }
        for (RecordProblem p : rec.problems()) {
          if (p.skippedBytes() <= 0 || p.offset() < 0 || p.offset() + p.skippedBytes() > input.length) {
            throw new AssertionError("a skipped stretch outside the file: " + p);
          }
          accounted += p.skippedBytes();
        }
        if (accounted > input.length) {
          throw new AssertionError("skipped " + accounted + " bytes of a " + input.length + "-byte file");
        }
      }
    });
  }
}
