package dev.minibatch.samples.images;

import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.samples.mnist.MnistData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The image sample's entry point: writes the bundled digits as PNGs, packs them with im2rec, and
 * trains the CNN on them with augmentation.
 *
 * <pre>
 * mvn -B -ntp -pl samples -am -DskipTests package exec:exec \
 *     -Dmain.class=dev.minibatch.samples.images.TrainDigitImages -Dmain.args="--epochs 3"
 * </pre>
 *
 * <p>Options: {@code --epochs N} (default 3), {@code --train N} digits (default 8000), {@code
 * --threads N} preprocess threads (default 2), {@code --work DIR} for the PNGs and record files
 * (default a new temporary directory).
 */
public final class TrainDigitImages {
  private TrainDigitImages() {}

  /** Runs the sample. */
  public static void main(String[] args) throws IOException {
    int epochs = 3;
    int train = 8000;
    int threads = 2;
    Path work = null;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      if (value == null) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      switch (args[i++]) {
        case "--epochs" -> epochs = Integer.parseInt(value);
        case "--train" -> train = Integer.parseInt(value);
        case "--threads" -> threads = Integer.parseInt(value);
        case "--work" -> work = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i - 1]
            + "; options: --epochs N --train N --threads N --work DIR");
      }
    }
    Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("minibatch-digit-images");
    MnistData data = MnistData.bundled().limitTrain(train);
    DigitPngs.Packed trainRec = DigitPngs.pack(data.train(), dir, "train", threads);
    DigitPngs.Packed testRec = DigitPngs.pack(data.test(), dir, "test", threads);
    System.out.printf(Locale.ROOT, "packed %d training and %d held-out digit PNGs into %s%n", trainRec.images(),
        testRec.images(), dir);
    try (ImageRecordProvider trainer = DigitImageTrainer.training(trainRec.rec(), 64, threads, 7);
        ImageRecordProvider test = DigitImageTrainer.heldOut(testRec.rec(), threads)) {
      DigitImageTrainer.train(trainer, test, epochs, 7, r -> System.out.printf(Locale.ROOT,
          "epoch %d: %d images in %.1f s (%.0f images/s), held-out accuracy %.2f %%%n", r.epoch(), r.samples(),
          r.seconds(), r.samplesPerSecond(), 100 * r.heldOutAccuracy()));
    }
    if (work == null) {
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
