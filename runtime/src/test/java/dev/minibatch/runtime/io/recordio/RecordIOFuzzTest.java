package dev.minibatch.runtime.io.recordio;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.FuzzChecks;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordProblem;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Fuzzes the RecordIO reader and the image provider. {@code readRecords}: a strict open and read of
 * every record as an image record, then {@code ImageRecordProvider}'s build (record 0 decides the
 * label width) and one epoch (OpenCV decodes each image on two reader threads), each ending in
 * success or a named {@code FileFormatException}, and a build under round_batch with one row more
 * than the file holds, which must name the file in an {@code IllegalArgumentException}; and a
 * {@code skipCorrupt} open, which must never fail on content and must account for every byte (the
 * records read plus the skipped stretches). {@code readIndex} and {@code readList} fuzz an {@code
 * .idx} and a {@code .lst} beside a fixed, valid file of two PNG records: their content must end
 * in an error naming them (or, for an index offset that points elsewhere, the record there), never
 * in an I/O error. Seeds: dmlc's {@code sample.rec}, a small file with split records, two PNG
 * image records, two 24x16 JPEG records (4:2:0, the encoder's standard tables) and one JPEG cut
 * inside its entropy-coded data (written by the project's own test helpers), and the PNG file's
 * index and list, under {@code RecordIOFuzzTestInputs/<method>}.
 * Without {@code JAZZER_FUZZ} this replays the seeds and every committed finding; see
 * docs/bad-input.md to fuzz.
 */
class RecordIOFuzzTest {
  private static final Path DIR = FuzzChecks.tempDir("recordio-fuzz");
  private static final Path FILE = DIR.resolve("fuzzed.rec");
  /** The fixed file the fuzzed index and list describe: ids 0 and 1, header labels 1 and 2, 4x4 PNGs. */
  private static final Path PNG_REC = DIR.resolve("png.rec");
  private static final Path INDEX = DIR.resolve("fuzzed.idx");
  private static final Path LIST = DIR.resolve("fuzzed.lst");

  static {
    try (InputStream in = RecordIOFuzzTest.class.getResourceAsStream("RecordIOFuzzTestInputs/readRecords/png.rec")) {
      Files.copy(Objects.requireNonNull(in, "png.rec seed"), PNG_REC);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

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
      // A file without records, or whose record 0 packs labels (labelWidth is 1 here), fails at
      // build, naming the file. Else round_batch (the default) needs a batch of records: a
      // settings error that names the file.
      try {
        ImageRecordProvider.builder().pathImgrec(FILE).dataShape(1, 4, 4).batchSize(records + 1).build().close();
        throw new AssertionError("round_batch built batches of " + (records + 1) + " from " + records + " records");
      } catch (IllegalArgumentException e) {
        String expected = "ImageRecordProvider: " + FILE + " holds " + records + " record";
        if (!e.getMessage().startsWith(expected)) {
          throw new AssertionError("expected '" + expected + "...', got: " + e.getMessage(), e);
        }
      }
      // Decode and augment every image on two reader threads: OpenCV's decoders see the fuzzed
      // bytes, and every failure must arrive as a named error.
      oneEpoch(ImageRecordProvider.builder().pathImgrec(FILE).dataShape(1, 4, 4).batchSize(3)
          .lastBatch(LastBatch.PARTIAL).preprocessThreads(2).augment(a -> a.randCrop(true)).seed(1));
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

  @FuzzTest(maxDuration = "5m")
  void readIndex(byte[] input) {
    FuzzChecks.write(INDEX, input);
    FuzzChecks.check(INDEX, input.length, 1, () -> describing(INDEX, () -> {
      try (RecordIOFile rec = RecordIOFile.open(PNG_REC, INDEX)) {
        ByteBuffer buffer = null;
        for (int i = 0; i < rec.records(); i++) {
          buffer = rec.read(i, buffer);
          ImageRecord.check(buffer, PNG_REC.toString(), i, rec.offset(i));
        }
      }
      oneEpoch(ImageRecordProvider.builder().pathImgrec(PNG_REC).pathImgidx(INDEX).dataShape(1, 4, 4).batchSize(3)
          .lastBatch(LastBatch.PARTIAL).preprocessThreads(2));
    }));
  }

  @FuzzTest(maxDuration = "5m")
  void readList(byte[] input) {
    FuzzChecks.write(LIST, input);
    FuzzChecks.check(LIST, input.length, 1, () -> describing(LIST, () -> oneEpoch(ImageRecordProvider.builder()
        .pathImgrec(PNG_REC).pathImglist(LIST).dataShape(1, 4, 4).batchSize(2).preprocessThreads(2))));
  }

  /** Builds the provider and reads one epoch, unwrapping a reader thread's format error. */
  private static void oneEpoch(ImageRecordProvider.Builder builder) {
    try (ImageRecordProvider p = builder.build()) {
      FuzzChecks.oneEpoch(p);
    } catch (StageFailedException e) {
      if (!(e.getCause() instanceof FileFormatException)) {
        throw e;
      }
      throw (FileFormatException) e.getCause();
    }
  }

  /**
   * Runs {@code body}, which reads {@code PNG_REC} as the fuzzed {@code file} describes it: an error
   * about a record of the fixed file (where a fuzzed offset pointed) is not the fuzzed file's to
   * name, and an I/O error means content was reported as a failure to read.
   */
  private static void describing(Path file, FuzzChecks.Body body) {
    try {
      body.run();
    } catch (FileFormatException e) {
      if (!(e.file().equals(PNG_REC.toString()) && e.getMessage().startsWith(PNG_REC + ": record "))) {
        throw e;
      }
    } catch (UncheckedIOException e) {
      throw new AssertionError("the content of " + file + " surfaced as an I/O error: " + e.getMessage(), e);
    }
  }
}
