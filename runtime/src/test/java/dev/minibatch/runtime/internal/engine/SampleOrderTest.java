package dev.minibatch.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import org.junit.jupiter.api.Test;

/** SampleOrder is the scheduler's plan: hand-computed cuts, shards, padding, carry and resume. */
class SampleOrderTest {
  private static Sampling sampling(int batch, LastBatch policy, int parts, int part) {
    return new Sampling(batch, policy, false, 1L, true, parts, part, false, false, new dev.minibatch.runtime.Settings.Padding(java.util.Map.of(), 0, 0),
        dev.minibatch.runtime.ProviderBuilder.BadSamples.fail(), new dev.minibatch.runtime.Settings.Workers(0, 0));
  }

  @Test
  void cutsPadsAndShardsAsDocumented() {
    // 7 samples, batches of 3, PAD_CONSTANT: [0 1 2] [3 4 5] [6 -1 -1]
    SampleOrder.Epoch e = new SampleOrder(7, sampling(3, LastBatch.PAD_CONSTANT, 1, 0)).nextEpoch();
    assertEquals(3, e.batchCount());
    assertArrayEquals(new int[] {6, SampleOrder.CONSTANT_PAD, SampleOrder.CONSTANT_PAD}, e.batches()[2]);
    assertEquals(2, e.lastPad());
    // PAD_WRAP wraps from the part's start: [6 0 1]
    assertArrayEquals(new int[] {6, 0, 1}, new SampleOrder(7, sampling(3, LastBatch.PAD_WRAP, 1, 0)).nextEpoch().batches()[2]);
    // part 1 of 2 of 7 is [floor(7/2), 7) = 3..6
    assertArrayEquals(new int[] {3, 4, 5, 6}, new SampleOrder(7, sampling(2, LastBatch.PARTIAL, 2, 1)).nextEpoch().rows());
  }

  @Test
  void rollOverCarriesIntoTheNextEpochAndResumes() {
    SampleOrder o = new SampleOrder(7, sampling(3, LastBatch.ROLL_OVER, 1, 0));
    SampleOrder.Epoch first = o.nextEpoch();
    assertEquals(2, first.batchCount()); // 6 is carried
    IterationState between = o.saveState();
    SampleOrder.Epoch second = o.nextEpoch();
    assertArrayEquals(new int[] {6, 0, 1}, second.batches()[0]);
    SampleOrder resumed = new SampleOrder(7, sampling(3, LastBatch.ROLL_OVER, 1, 0));
    resumed.restoreState(between);
    assertArrayEquals(second.rows(), resumed.nextEpoch().rows());
  }
}
