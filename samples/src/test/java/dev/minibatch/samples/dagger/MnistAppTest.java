package dev.minibatch.samples.dagger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.samples.mnist.MnistTrainer;
import dev.minibatch.samples.mnist.TrainOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MnistAppTest {
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theComponentInjectsProvidersAndTheLoopThatTrainsOnThem() {
    TrainOptions options = TrainOptions.parse("--epochs", "1", "--batch", "32", "--train-limit", "3000", "--seed", "3");
    MnistApp app = DaggerMnistApp.factory().create(options);
    List<MnistTrainer.EpochReport> reports = app.trainingLoop().run(r -> { });
    assertEquals(1, reports.size());
    assertEquals(2976, reports.get(0).samples());
    assertTrue(reports.get(0).heldOutAccuracy() >= 0.80, "held-out accuracy " + reports.get(0).heldOutAccuracy());
  }
}
