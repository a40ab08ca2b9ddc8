package dev.minibatch.runtime.io.idx;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.internal.io.GzipContent;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.io.FuzzChecks;
import dev.minibatch.runtime.io.idx.IdxFile.IdxArray;
import dev.minibatch.runtime.io.mnist.MnistProvider;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Fuzzes the idx reader, raw and gzip, and {@link MnistProvider} (build and one epoch) with one
 * file: the fuzzed file is the images or the labels, as its magic number says, and the other file
 * is a small valid one of the same sample count. Seeds: 16-sample copies of the MNIST t10k files,
 * raw and gzip, under {@code IdxFuzzTestInputs/readAndProvide}. Without {@code JAZZER_FUZZ} this
 * replays the seeds and every committed finding; see docs/bad-input.md to fuzz.
 */
class IdxFuzzTest {
  private static final Path DIR = FuzzChecks.tempDir("idx-fuzz");
  private static final Path FILE = DIR.resolve("fuzzed.idx");
  private static final Path OTHER = DIR.resolve("other.idx");
  /**
   * The most samples the companion file gets; more only makes the counts differ. It gets at least
   * one, so that a defect is always the fuzzed file's (the provider reads the images first).
   */
  private static final int MAX_COMPANION = 1 << 12;

  @FuzzTest(maxDuration = "5m")
  void readAndProvide(byte[] input) {
    FuzzChecks.write(FILE, input);
    FuzzChecks.check(FILE, input.length, GzipContent.MAX_RATIO, () -> {
      IdxArray a = IdxFile.read(FILE);
      int magic = a.type().magic(a.rank());
      if (magic == IdxFile.MNIST_IMAGES_MAGIC) {
        FuzzChecks.write(OTHER, labels(companion(a.count())));
        FuzzChecks.oneEpoch(MnistProvider.builder().image(FILE).label(OTHER).batchSize(5).flat(a.count() % 2 == 0).build());
      } else if (magic == IdxFile.MNIST_LABELS_MAGIC) {
        FuzzChecks.write(OTHER, images(companion(a.count())));
        FuzzChecks.oneEpoch(MnistProvider.builder().image(OTHER).label(FILE).batchSize(5).build());
      } else {
        a.toDoubleArray();
      }
    });
  }

  private static int companion(int count) {
    return Math.max(1, Math.min(count, MAX_COMPANION));
  }

  /** An idx1-ubyte file of {@code n} labels, all 3. */
  private static byte[] labels(int n) {
    ByteBuffer b = ByteBuffer.allocate(8 + n).putInt(IdxFile.MNIST_LABELS_MAGIC).putInt(n);
    while (b.hasRemaining()) {
      b.put((byte) 3);
    }
    return b.array();
  }

  /** An idx3-ubyte file of {@code n} 1x1 images. */
  private static byte[] images(int n) {
    return ByteBuffer.allocate(16 + n).putInt(IdxFile.MNIST_IMAGES_MAGIC).putInt(n).putInt(1).putInt(1).array();
  }
}
