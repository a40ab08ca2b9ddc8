package dev.minibatch.samples.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.samples.mnist.MnistData;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The image sample end to end: digits to PNGs, im2rec, augmented training, held-out accuracy. */
class DigitImageTrainerTest {
  @TempDir Path work;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aSmallCnnLearnsDigitsFromPackedPngs() {
    MnistData data = MnistData.bundled().limitTrain(3000);
    DigitPngs.Packed train = DigitPngs.pack(data.train(), work, "train", 2);
    DigitPngs.Packed test = DigitPngs.pack(data.test().subList(0, 1000), work, "test", 2);
    assertEquals(3000, train.images());
    assertEquals(1000, test.images());
    try (ImageRecordProvider t = DigitImageTrainer.training(train.rec(), 64, 2, 7);
        ImageRecordProvider h = DigitImageTrainer.heldOut(test.rec(), 2)) {
      List<DigitImageTrainer.EpochReport> reports = DigitImageTrainer.train(t, h, 2, 7, r -> { });
      // 3000 digits in batches of 64 with DISCARD: 46 batches, 2944 digits per epoch.
      assertEquals(2944, reports.get(0).samples());
      double accuracy = reports.get(1).heldOutAccuracy();
      assertTrue(accuracy >= 0.85, "held-out accuracy after 2 epochs: " + accuracy);
    }
    assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(x -> x.getName().startsWith("minibatch-image")),
        "a reader thread outlived the providers");
  }
}
