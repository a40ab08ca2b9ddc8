package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.contract.EngineThreads;
import dev.minibatch.runtime.engine.MergedProvider;
import dev.minibatch.runtime.engine.ResizedProvider;
import dev.minibatch.runtime.example.ComputedProvider;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSampleBudgetException;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bad-sample policies on the engine, over a provider whose sample {@code i} holds the value
 * {@code i} and fails for a planted set of indices: the batches expected are worked out by hand
 * (the planned batch without, or with the next good sample in place of, the bad ones), for the
 * consumer's thread and for 1 and 3 reader threads.
 */
class BadSamplesTest {
  /** A provider of samples 0..n-1 (value = index) whose samples in {@code bad} throw. */
  private static ComputedProvider provider(int n, int batch, Set<Integer> bad, BadSamples policy, int readers,
      LastBatch last) {
    return ComputedProvider.builder()
        .samples(n, 1, (i, k) -> {
          if (bad.contains(i)) {
            throw new IllegalStateException("sample " + i + " is planted bad");
          }
          return i;
        })
        .label(i -> i)
        .batchSize(batch).lastBatch(last)
        .badSamples(policy)
        .readers(readers)
        .build();
  }

  /** Each batch's values (column 0), checked against its sample indices. */
  private static List<List<Integer>> values(Iterator<? extends Batch> it) {
    List<List<Integer>> out = new ArrayList<>();
    while (it.hasNext()) {
      Batch b = it.next();
      List<Integer> rows = new ArrayList<>();
      for (int r = 0; r < b.rows(); r++) {
        int v = (int) b.data().get(0).getFloat(r, 0);
        int label = b.label().get(0).getInt(r);
        assertEquals(v, label, "data and label of one row come from one sample");
        if (b.sampleIndex(r) >= 0) {
          assertEquals(v, b.sampleIndex(r), "sampleIndex names the sample in the row");
        }
        rows.add(v);
      }
      out.add(rows);
    }
    return out;
  }

  private static List<Integer> list(int... v) {
    return Arrays.stream(v).boxed().toList();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3})
  void skipLeavesBadSamplesOutOfTheirBatchesAndReportsThem(int readers) {
    try (ComputedProvider p = provider(20, 4, Set.of(5, 6, 13), BadSamples.skip(3), readers, LastBatch.PARTIAL)) {
      PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
      assertEquals(List.of(list(0, 1, 2, 3), list(4, 7), list(8, 9, 10, 11), list(12, 14, 15),
          list(16, 17, 18, 19)), values(it));
      List<BadSample> bad = PipelineStats.of(it).badSamples();
      assertEquals(List.of(5L, 6L, 13L), bad.stream().map(BadSample::sample).toList());
      assertTrue(bad.stream().noneMatch(BadSample::replaced));
      assertEquals("sample 13 is planted bad", bad.get(2).cause().getMessage());
      assertEquals(0, bad.get(0).epoch());
    }
  }

  @Test
  void aShuffledEpochSkipsTheSameSamplesForAnyNumberOfReaders() {
    Set<Integer> bad = Set.of(3, 17, 18, 41, 42, 43, 77);
    // The planned order, read from the same provider without bad samples.
    List<List<Integer>> planned;
    try (ComputedProvider clean = ComputedProvider.builder().samples(90, 1, (i, k) -> i).label(i -> i)
        .batchSize(8).shuffle(true).seed(11).build()) {
      planned = values(clean.iterator());
    }
    List<List<Integer>> expected = planned.stream().map(b -> b.stream().filter(i -> !bad.contains(i)).toList())
        .toList();
    for (int readers : new int[] {0, 1, 3}) {
      try (ComputedProvider p = ComputedProvider.builder()
          .samples(90, 1, (i, k) -> {
            if (bad.contains(i)) {
              throw new IllegalArgumentException("bad " + i);
            }
            return i;
          })
          .label(i -> i).batchSize(8).shuffle(true).seed(11).badSamples(BadSamples.skipFraction(0.1))
          .readers(readers).build()) {
        PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
        assertEquals(expected, values(it), readers + " readers");
        List<Long> reported = PipelineStats.of(it).badSamples().stream().map(BadSample::sample).toList();
        List<Long> inBatchOrder = planned.stream().flatMap(List::stream).filter(bad::contains)
            .map(Integer::longValue).toList();
        assertEquals(inBatchOrder, reported, "reported in batch order, " + readers + " readers");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3})
  void replaceWritesTheNextGoodSampleInTheBadRow(int readers) {
    // 5 and 6 bad: both rows get 7; 19 bad: wraps round to 0.
    try (ComputedProvider p = provider(20, 5, Set.of(5, 6, 19), BadSamples.replace(3), readers, LastBatch.PARTIAL)) {
      PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
      assertEquals(List.of(list(0, 1, 2, 3, 4), list(7, 7, 7, 8, 9), list(10, 11, 12, 13, 14),
          list(15, 16, 17, 18, 0)), values(it));
      List<BadSample> bad = PipelineStats.of(it).badSamples();
      assertEquals(List.of(5L, 6L, 19L), bad.stream().map(BadSample::sample).toList());
      assertEquals(List.of(7L, 7L, 0L), bad.stream().map(BadSample::replacement).toList());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3})
  void theBatchThatGoesOverTheBudgetThrowsAndTheEpochEnds(int readers) throws InterruptedException {
    Set<Thread> before = EngineThreads.live();
    try (ComputedProvider p = provider(20, 4, Set.of(2, 9, 14), BadSamples.skip(2), readers, LastBatch.PARTIAL)) {
      Iterator<NamedBatch> it = p.iterator();
      assertEquals(list(0, 1, 3), values(limit(it, 1)).get(0));
      assertEquals(list(4, 5, 6, 7), values(limit(it, 1)).get(0));
      assertEquals(list(8, 10, 11), values(limit(it, 1)).get(0));
      // Batch 3 holds the third bad sample, over skip(2)'s budget.
      BadSampleBudgetException e = assertThrows(BadSampleBudgetException.class, it::next);
      assertEquals(List.of(2L, 9L, 14L), e.badSamples().stream().map(BadSample::sample).toList());
      assertTrue(e.getMessage().contains("3 bad samples, over the budget of 2 (badSamples(BadSamples.skip(2)))"),
          e.getMessage());
      assertTrue(e.getMessage().contains("sample 14: sample 14 is planted bad"), e.getMessage());
      assertFalse(it.hasNext(), "the epoch ended");
      // The next epoch starts afresh, with a budget of its own.
      Iterator<NamedBatch> next = p.iterator();
      // Each batch is read before the iterator moves on: reader threads reuse a released batch's buffer.
      assertEquals(list(0, 1, 3), values(limit(next, 1)).get(0));
      assertEquals(list(4, 5, 6, 7), values(limit(next, 1)).get(0));
    }
    assertEquals(Set.of(), EngineThreads.awaitOnly(before, 10));
  }

  @Test
  void aBadSampleInTheWrappedPaddingShortensThePad() {
    // 10 samples, batch 4, PAD_WRAP: the last batch is 8, 9 and the padding 0, 1; 0 is bad.
    for (int readers : new int[] {0, 2}) {
      try (ComputedProvider p = provider(10, 4, Set.of(0), BadSamples.skip(2), readers, LastBatch.PAD_WRAP)) {
        PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
        List<Integer> pads = new ArrayList<>();
        List<List<Integer>> batches = new ArrayList<>();
        while (it.hasNext()) {
          Batch b = it.next();
          pads.add(b.pad());
          batches.add(values(List.of(b).iterator()).get(0));
        }
        assertEquals(List.of(list(1, 2, 3), list(4, 5, 6, 7), list(8, 9, 1)), batches);
        assertEquals(List.of(0, 0, 1), pads);
        assertEquals(2, PipelineStats.of(it).badSamples().size(), "sample 0 is met twice");
      }
    }
  }

  @Test
  void failIsTheDefaultAndNamesTheSample() {
    try (ComputedProvider p = provider(12, 4, Set.of(6), BadSamples.fail(), 2, LastBatch.PARTIAL)) {
      Iterator<NamedBatch> it = p.iterator();
      StageFailedException e = assertThrows(StageFailedException.class, () -> values(it));
      assertEquals(6, e.sampleIndex());
    }
    try (ComputedProvider p = provider(12, 4, Set.of(6), BadSamples.skip(0), 0, LastBatch.PARTIAL)) {
      assertThrows(BadSampleBudgetException.class, () -> values(p.iterator()), "skip(0) allows none");
    }
  }

  @Test
  void anErrorIsNeverSkipped() {
    try (ComputedProvider p = ComputedProvider.builder()
        .samples(8, 1, (i, k) -> {
          if (i == 3) {
            throw new AssertionError("not a sample's problem");
          }
          return i;
        })
        .batchSize(4).badSamples(BadSamples.skip(5)).build()) {
      assertThrows(AssertionError.class, () -> values(p.iterator()));
    }
  }

  @Test
  void budgetsAreCheckedAndNamed() {
    assertThrows(IllegalArgumentException.class, () -> BadSamples.skip(-1));
    assertThrows(IllegalArgumentException.class, () -> BadSamples.replaceFraction(1.5));
    assertThrows(IllegalArgumentException.class, () -> BadSamples.skipFraction(Double.NaN));
    assertEquals("skip(3)", BadSamples.skip(3).toString());
    assertEquals("replaceFraction(0.01)", BadSamples.replaceFraction(0.01).toString());
    assertEquals("fail()", BadSamples.fail().toString());
  }

  /** The next {@code n} batches of {@code it}, as an iterator. */
  private static Iterator<NamedBatch> limit(Iterator<NamedBatch> it, int n) {
    List<NamedBatch> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      out.add(it.next());
    }
    return out.iterator();
  }

  /** (epoch, sample, replacement) of each bad sample, in the order reported. */
  private static List<List<Long>> reported(Iterator<?> it) {
    return PipelineStats.of(it).badSamples().stream()
        .map(b -> List.of((long) b.epoch(), b.sample(), b.replacement())).toList();
  }

  @Test
  void resizedEpochsReportTheBadSamplesOfTheBatchesTheyDelivered() {
    // 20 samples in batches of 4 are 5 wrapped batches a epoch: 0-3, 4-7, 8-11, 12-15, 16-19. Three
    // batches per resized epoch, carrying on: epoch 0 takes wrapped epoch 0's batches 0-2 (sample 5
    // bad), epoch 1 its batches 3-4 (sample 13) and wrapped epoch 1's batch 0 (none), epoch 2
    // wrapped epoch 1's batches 1-3 (samples 5 and 13 again). Each bad sample is replaced by the next.
    try (ResizedProvider<NamedBatch> r = ResizedProvider.of(
        provider(20, 4, Set.of(5, 13), BadSamples.replace(2), 0, LastBatch.PARTIAL), 3)) {
      List<List<List<Long>>> perEpoch = new ArrayList<>();
      for (int e = 0; e < 3; e++) {
        Iterator<NamedBatch> it = r.iterator();
        while (it.hasNext()) {
          it.next();
        }
        perEpoch.add(reported(it));
      }
      assertEquals(List.of(
          List.of(List.of(0L, 5L, 6L)),
          List.of(List.of(0L, 13L, 14L)),
          List.of(List.of(1L, 5L, 6L), List.of(1L, 13L, 14L))), perEpoch);
    }
  }

  @Test
  void aMergedEpochReportsEveryProvidersBadSamples() {
    try (MergedProvider m = MergedProvider.builder()
        .add(provider(12, 4, Set.of(5), BadSamples.replace(1), 0, LastBatch.PARTIAL))
        .add(provider(12, 4, Set.of(2, 9), BadSamples.replace(2), 0, LastBatch.PARTIAL),
            java.util.Map.of("data", "data2", "label", "label2"))
        .build()) {
      Iterator<NamedBatch> it = m.iterator();
      while (it.hasNext()) {
        it.next();
      }
      // Provider by provider, each in its batch order.
      assertEquals(List.of(List.of(0L, 5L, 6L), List.of(0L, 2L, 3L), List.of(0L, 9L, 10L)), reported(it));
    }
  }
}
