package dev.minibatch.runtime.io.csv;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.internal.io.GzipContent;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.io.FuzzChecks;
import java.nio.file.Path;

/**
 * Fuzzes the CSV parser (sequential, and cut into blocks parsed by two threads) and {@link
 * CsvProvider} (build and one epoch) with one file, raw or gzip, in two formats: plain numbers, and
 * iris's header with class names in the last column. Seeds: iris.csv, raw and gzip, and the first
 * 20 rows of optdigits.tes under {@code CsvFuzzTestInputs/parseAndProvide}. Without {@code
 * JAZZER_FUZZ} this replays the seeds and every committed finding; see docs/bad-input.md to fuzz.
 */
class CsvFuzzTest {
  private static final Path FILE = FuzzChecks.tempDir("csv-fuzz").resolve("fuzzed.csv");

  private static final CsvFormat PLAIN = CsvFormat.builder().threads(1).build();
  /** Iris's layout, cut into blocks of at least 64 bytes so that small inputs take the parallel path. */
  private static final CsvFormat CLASSES =
      CsvFormat.builder().header(true).labelColumn(-1).classLabels(true).threads(2).minBlockBytes(64).build();

  @FuzzTest(maxDuration = "5m")
  void parseAndProvide(byte[] input) {
    FuzzChecks.write(FILE, input);
    FuzzChecks.check(FILE, input.length, GzipContent.MAX_RATIO, () -> {
      CsvTable plain = CsvParser.parse(FILE, PLAIN);
      if (plain.rows() > 0 && plain.columns() > 1) {
        FuzzChecks.oneEpoch(CsvProvider.builder().dataFile(FILE).format(f -> f.labelColumn(-1))
            .dataShape(plain.columns() - 1).batchSize(7).build());
      }
    });
    FuzzChecks.check(FILE, input.length, GzipContent.MAX_RATIO, () -> {
      CsvTable classes = CsvParser.parse(FILE, CLASSES);
      if (classes.rows() > 0 && classes.columns() > 0) {
        FuzzChecks.oneEpoch(CsvProvider.builder().dataFile(FILE).format(CLASSES).dataShape(classes.columns())
            .batchSize(7).shuffle(true).seed(1).build());
      }
    });
  }
}
