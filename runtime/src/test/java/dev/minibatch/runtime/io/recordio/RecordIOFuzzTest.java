package dev.minibatch.runtime.io.recordio;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.io.FuzzChecks;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Fuzzes the RecordIO reader: a strict open and read of every record as an image record (a named
 * {@code FileFormatException} or success), and a {@code skipCorrupt} open, which must never fail on
 * content and must account for every byte (the records read plus the skipped stretches). Seeds:
 * dmlc's {@code sample.rec} and a small file with split records, under {@code
 * RecordIOFuzzTestInputs/readRecords}. Without {@code JAZZER_FUZZ} this replays the seeds and every
 * committed finding; see docs/bad-input.md to fuzz.
 */
class RecordIOFuzzTest {
  private static final Path FILE = FuzzChecks.tempDir("recordio-fuzz").resolve("fuzzed.rec");

  @FuzzTest(maxDuration = "5m")
  void readRecords(byte[] input) {
    FuzzChecks.write(FILE, input);
    FuzzChecks.check(FILE, input.length, 1, () -> {
      try (RecordIOFile rec = RecordIOFile.open(FILE)) {
        ByteBuffer buffer = null;
        for (int i = 0; i < rec.records(); i++) {
          buffer = rec.read(i, buffer);
          ImageRecord.check(buffer, FILE.toString(), i, rec.offset(i));
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
