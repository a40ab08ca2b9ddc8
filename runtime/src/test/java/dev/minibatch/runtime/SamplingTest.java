package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.internal.settings.Sampling;
import org.junit.jupiter.api.Test;

/** The settings are decided once, when a provider is built, and read everywhere below. */
class SamplingTest {
  /** A builder that exposes the settings it resolves. */
  private static final class Probe extends ProviderBuilder<Probe> {
    Sampling resolve() {
      return Sampling.resolve(settings());
    }
  }

  @Test
  void withoutASeedOneIsDrawnWhenTheSettingsAreMadeAndKept() {
    Sampling s = new Probe().batchSize(4).shuffle(true).resolve();
    assertFalse(s.seeded());
    assertEquals(s.seed(), s.withBatch(8, LastBatch.DISCARD).seed(), "deriving settings keeps the drawn seed");
    Sampling given = new Probe().batchSize(4).seed(42).resolve();
    assertTrue(given.seeded());
    assertEquals(42, given.seed());
  }

  @Test
  void aProviderBuiltWithoutASeedShufflesEveryEpochFromTheOneItReports() {
    float[] x = new float[50];
    for (int i = 0; i < x.length; i++) {
      x[i] = i;
    }
    try (ArrayDataProvider unseeded = ArrayDataProvider.builder().data("x", x).batchSize(50).shuffle(true).build();
        ArrayDataProvider replay = ArrayDataProvider.builder().data("x", x).batchSize(50).shuffle(true)
            .seed(unseeded.seed()).build()) {
      for (int epoch = 0; epoch < 3; epoch++) {
        float[] a = unseeded.iterator().next().get("x").toFloatVector();
        float[] b = replay.iterator().next().get("x").toFloatVector();
        assertEquals(java.util.Arrays.toString(b), java.util.Arrays.toString(a), "epoch " + epoch);
      }
    }
  }

  @Test
  void batchSizeZeroIsTheWholeShardAndIsReadInOnePlace() {
    Sampling whole = new Probe().batchSize(0).resolve();
    assertEquals(37, whole.batchRows(37));
    assertEquals(8, new Probe().batchSize(8).resolve().batchRows(37));
  }

  @Test
  void oneCheckAndOneMessageForABadBatchSize() {
    IllegalArgumentException fromBuilder = assertThrows(IllegalArgumentException.class, () -> new Probe().batchSize(-2));
    IllegalArgumentException fromSettings = assertThrows(IllegalArgumentException.class,
        () -> Settings.builder().batchSize(-2));
    assertEquals("batch size must be >= 0 (0 = the whole shard as one batch), got -2", fromBuilder.getMessage());
    assertEquals(fromBuilder.getMessage(), fromSettings.getMessage());
  }

  @Test
  void shardedShufflingNeedsTheUsersSeedNotADrawnOne() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new Probe().batchSize(4).shuffle(true).shard(2, 0).resolve());
    assertEquals("shuffle with numParts = 2 needs an explicit seed: every part must draw the same permutation for the "
        + "parts to be disjoint", e.getMessage());
  }
}
