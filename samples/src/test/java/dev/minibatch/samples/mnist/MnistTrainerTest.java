package dev.minibatch.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The main job in a short form, so it cannot rot: one epoch on 3000 digits must learn. */
class MnistTrainerTest {
  @Test
  void theBundledDigitsAreTheKnownMnistTestSet() {
    MnistData data = MnistData.bundled();
    assertEquals(8000, data.train().size());
    assertEquals(2000, data.test().size());
    // The first t10k labels, as published: 7, 2, 1, 0, 4, 1, 4, 9, 5, 9.
    assertEquals(List.of(7, 2, 1, 0, 4, 1, 4, 9, 5, 9), data.train().subList(0, 10).stream().map(MnistDigit::label).toList());
    // The t10k label histogram (980 zeros, 1135 ones, … 1009 nines) summed over both parts.
    int[] counts = new int[10];
    data.train().forEach(d -> counts[d.label()]++);
    data.test().forEach(d -> counts[d.label()]++);
    assertEquals(List.of(980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009),
        java.util.Arrays.stream(counts).boxed().toList());
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void oneShortEpochReachesEightyPercent() {
    MnistData data = MnistData.bundled().limitTrain(3000);
    TrainOptions options = TrainOptions.parse("--epochs", "1", "--batch", "32", "--workers", "1", "--seed", "7");
    List<MnistTrainer.EpochReport> reports = MnistTrainer.train(data, options, r -> { });
    MnistTrainer.EpochReport r = reports.get(0);
    assertTrue(r.heldOutAccuracy() >= 0.80, "held-out accuracy " + r.heldOutAccuracy());
    assertTrue(r.loss() > 0 && r.loss() < 2.3, "mean loss " + r.loss() + " (chance is ln 10 = 2.30)");
    assertEquals(2976, r.samples()); // 93 full batches of 32; DISCARD drops the last 24
    assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("minibatch-prefetch")),
        "a prefetch thread outlived the training");
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void samplesAreTheDigitsTheProviderDelivered() {
    // 100 digits in batches of 32: four batches, the last with 4 real digits. Each policy's count
    // follows from its definition: DISCARD drops the 4 (3 × 32 = 96), PARTIAL delivers them in a
    // batch of 4, PAD_WRAP pads that batch with 28 wrapped digits, which are not counted.
    List<MnistDigit> digits = MnistData.bundled().train().subList(0, 100);
    MnistData data = new MnistData(digits, digits);
    Map<LastBatch, Integer> expected = Map.of(LastBatch.DISCARD, 96, LastBatch.PARTIAL, 100, LastBatch.PAD_WRAP, 100);
    for (int workers : new int[] {0, 1}) {
      TrainOptions options = TrainOptions.parse("--epochs", "2", "--batch", "32", "--workers", String.valueOf(workers));
      for (Map.Entry<LastBatch, Integer> e : expected.entrySet()) {
        try (MnistDigitProvider train = MnistDigitProvider.create(b -> b.samples(digits).batchSize(32)
                .shuffle(true).seed(3).lastBatch(e.getKey()));
            MnistDigitProvider test = MnistTrainer.testProvider(data)) {
          List<MnistTrainer.EpochReport> reports = MnistTrainer.train(train, test, options, r -> { });
          assertEquals(List.of(e.getValue(), e.getValue()),
              reports.stream().map(MnistTrainer.EpochReport::samples).toList(), e.getKey() + ", workers " + workers);
        }
      }
    }
  }

  @Test
  void badOptionsSayWhatIsExpected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrainOptions.parse("--epoch", "3"));
    assertEquals("unknown option --epoch; options: --epochs N --batch N --workers N --seed N --mnist-dir DIR --train-limit N",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TrainOptions.parse("--batch", "0"));
    assertEquals("--batch must be > 0, got 0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TrainOptions.parse("--seed"));
    assertEquals("option --seed needs a value", e.getMessage());
  }
}
