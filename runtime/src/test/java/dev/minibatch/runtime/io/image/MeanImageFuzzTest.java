package dev.minibatch.runtime.io.image;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.io.FuzzChecks;
import java.nio.file.Path;

/**
 * Fuzzes the reader of the mean image, the NumPy {@code .npy} file {@code normalize(n ->
 * n.meanImg(path))} loads when it exists, for an output of shape (3, 4, 5): every input ends in the
 * 60 means or a {@code FileFormatException} naming the file; any other throwable is a finding.
 * Seeds: the file {@code MeanImage} saves for that shape (format version 1) and the same data under
 * version 2 and 3 headers, under {@code MeanImageFuzzTestInputs/load}. Without {@code JAZZER_FUZZ}
 * this replays the seeds and every committed finding; see docs/bad-input.md to fuzz.
 */
class MeanImageFuzzTest {
  private static final Path DIR = FuzzChecks.tempDir("mean-image-fuzz");
  private static final Path FILE = DIR.resolve("fuzzed.npy");
  private static final Augmentation OUTPUT = new Augmentation(3, 4, 5, new ImageRecordProvider.Augment().settings(3),
      new ImageRecordProvider.Normalize().settings());

  @FuzzTest(maxDuration = "5m")
  void load(byte[] input) {
    FuzzChecks.write(FILE, input);
    FuzzChecks.check(FILE, input.length, 1, () -> {
      float[] mean = MeanImage.load(FILE, OUTPUT);
      if (mean.length != 3 * 4 * 5) {
        throw new AssertionError("read " + mean.length + " means for an output of 60 values");
      }
    });
  }
}
