package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Class-probability draws cut by every last-batch policy and sharded, checked against batches
 * computed by hand from the draw sequence {@link ClassSampler} reports for the same seed.
 */
class Hdf5DrawnBatchesTest {
  private static final long SEED = 22;

  /** Two entries of 7 samples each: class a (samples 0..6, weight 3) and class b (7..13, weight 1). */
  private static Hdf5Provider.Builder spec() {
    return Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a", 3)
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "b", 1)
        .seed(SEED);
  }

  /** The draws of {@code epoch}, as the sampler reports them. */
  private static int[] draws(int epoch) {
    int[] d = new int[14];
    new ClassSampler(new int[] {7, 7}, new double[] {3, 1}, false, false, SEED, -1).epoch(epoch, d);
    return d;
  }

  @Test
  void theDrawsInterleaveTheClasses() {
    // Guards the other tests: with an identity order, positions and sample indices would coincide.
    int[] d = draws(0);
    int[] sorted = d.clone();
    Arrays.sort(sorted);
    assertFalse(Arrays.equals(sorted, d), Arrays.toString(d));
    assertFalse(Arrays.equals(d, draws(1)));
  }

  private static int[] cat(int[] a, int... b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static int[] range(int[] d, int from, int to) {
    return Arrays.copyOfRange(d, from, to);
  }

  /** The sample indices of every batch of one epoch, checking data and labels of every row. */
  private static List<long[]> epoch(Hdf5Provider p) {
    List<long[]> out = new ArrayList<>();
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        NamedBatch b = it.next();
        for (int r = 0; r < b.rows(); r++) {
          long idx = b.sampleIndex(r);
          double value = b.get("int/int32").getDouble(r, 0, 0);
          double label = b.get("softmax_label").getDouble(r);
          if (idx < 0) {
            assertEquals(-5.0, value, 0.0);
            assertEquals(-9.0, label, 0.0);
          } else {
            assertEquals(15.0 * (idx % 7), value, 0.0);
            assertEquals(idx < 7 ? 0.0 : 1.0, label, 0.0);
          }
        }
        out.add(b.sampleIndices());
      }
    }
    return out;
  }

  private static void assertBatches(List<int[]> expected, List<long[]> actual) {
    assertEquals(expected.size(), actual.size(), "batches");
    for (int j = 0; j < expected.size(); j++) {
      assertArrayEquals(Arrays.stream(expected.get(j)).asLongStream().toArray(), actual.get(j), "batch " + j);
    }
  }

  private static Hdf5Provider build(LastBatch policy, int readers) {
    return spec().batchSize(4).lastBatch(policy).dataPadding(-5).labelPadding(-9).readers(readers).build();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2})
  @Timeout(60)
  void partialAndDiscardCutTheDraws(int readers) {
    int[] d = draws(0);
    try (Hdf5Provider p = build(LastBatch.PARTIAL, readers)) {
      assertBatches(List.of(range(d, 0, 4), range(d, 4, 8), range(d, 8, 12), range(d, 12, 14)), epoch(p));
    }
    try (Hdf5Provider p = build(LastBatch.DISCARD, readers)) {
      assertBatches(List.of(range(d, 0, 4), range(d, 4, 8), range(d, 8, 12)), epoch(p));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2})
  @Timeout(60)
  void padWrapTilesFromTheStartOfTheEpochsDraws(int readers) {
    try (Hdf5Provider p = build(LastBatch.PAD_WRAP, readers)) {
      for (int e = 0; e < 2; e++) {
        int[] d = draws(e);
        assertBatches(List.of(range(d, 0, 4), range(d, 4, 8), range(d, 8, 12), new int[] {d[12], d[13], d[0], d[1]}),
            epoch(p));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2})
  @Timeout(60)
  void padConstantPadsWithTheConstantsAndIndexMinusOne(int readers) {
    int[] d = draws(0);
    try (Hdf5Provider p = build(LastBatch.PAD_CONSTANT, readers)) {
      List<long[]> batches = epoch(p);
      assertBatches(List.of(range(d, 0, 4), range(d, 4, 8), range(d, 8, 12), new int[] {d[12], d[13], -1, -1}), batches);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2})
  @Timeout(60)
  void rollOverCarriesTheLeftoverDrawsToTheNextEpoch(int readers) {
    int[] d0 = draws(0);
    int[] d1 = draws(1);
    int[] d2 = draws(2);
    try (Hdf5Provider p = build(LastBatch.ROLL_OVER, readers)) {
      assertBatches(List.of(range(d0, 0, 4), range(d0, 4, 8), range(d0, 8, 12)), epoch(p));
      // Epoch 1 starts with epoch 0's last two draws: 16 draws, four full batches, nothing left.
      assertBatches(List.of(cat(range(d0, 12, 14), d1[0], d1[1]), range(d1, 2, 6), range(d1, 6, 10), range(d1, 10, 14)),
          epoch(p));
      assertBatches(List.of(range(d2, 0, 4), range(d2, 4, 8), range(d2, 8, 12)), epoch(p));
    }
  }

  @Test
  void rollOverStateResumesWithTheCarriedDraws() {
    int[] d0 = draws(0);
    int[] d1 = draws(1);
    IterationState state;
    try (Hdf5Provider p = build(LastBatch.ROLL_OVER, 0)) {
      epoch(p);
      state = p.saveState();
      assertEquals(2, state.carried().length);
    }
    try (Hdf5Provider q = build(LastBatch.ROLL_OVER, 0)) {
      q.restoreState(IterationState.decode(state.encode()));
      assertArrayEquals(Arrays.stream(cat(range(d0, 12, 14), d1[0], d1[1])).asLongStream().toArray(),
          q.iterator().next().sampleIndices());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> spec().batchSize(20).lastBatch(LastBatch.ROLL_OVER).build());
    assertTrue(e.getMessage().contains("has 14 draws per epoch, the batch size is 20"), e.getMessage());
  }

  /**
   * IterationState: a state's seed is a value the provider takes, the class draws' seed too. A state
   * saved after one batch under seed 22 resumes, in a provider built with seed 7, with the rest of
   * seed 22's epoch and then its next epoch; and the provider reports seed 22.
   */
  @Test
  void aRestoredStateBringsItsSeedToTheDraws() {
    int[] d0 = draws(0);
    int[] other = new int[14];
    new ClassSampler(new int[] {7, 7}, new double[] {3, 1}, false, false, 7, -1).epoch(0, other);
    assertFalse(Arrays.equals(d0, other), "seed 7 must draw another order, or the test could not tell");
    IterationState state;
    try (Hdf5Provider p = build(LastBatch.PARTIAL, 0); BatchIterator<NamedBatch> it = p.iterator()) {
      it.next();
      state = p.saveState();
    }
    try (Hdf5Provider q = spec().seed(7).batchSize(4).dataPadding(-5).labelPadding(-9).build()) {
      assertEquals(7, q.seed());
      q.restoreState(IterationState.decode(state.encode()));
      assertEquals(SEED, q.seed());
      assertBatches(List.of(range(d0, 4, 8), range(d0, 8, 12), range(d0, 12, 14)), epoch(q));
      int[] d1 = draws(1);
      assertBatches(List.of(range(d1, 0, 4), range(d1, 4, 8), range(d1, 8, 12), range(d1, 12, 14)), epoch(q));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2})
  @Timeout(60)
  void shardsAreContiguousDisjointPartsOfEachEpochsDraws(int readers) {
    // 14 draws in 3 parts: [0, 4), [4, 9), [9, 14).
    int[] bounds = {0, 4, 9, 14};
    for (int e = 0; e < 2; e++) {
      BitSet seen = new BitSet();
      int[] d = draws(e);
      for (int part = 0; part < 3; part++) {
        try (Hdf5Provider p = spec().batchSize(2).shard(3, part).readers(readers).build()) {
          assertEquals(bounds[part + 1] - bounds[part], p.shardSize());
          for (int skip = 0; skip < e; skip++) {
            epoch(p);
          }
          List<Long> got = new ArrayList<>();
          for (long[] b : epoch(p)) {
            for (long i : b) {
              got.add(i);
            }
          }
          int[] expected = range(d, bounds[part], bounds[part + 1]);
          assertArrayEquals(Arrays.stream(expected).asLongStream().toArray(),
              got.stream().mapToLong(Long::longValue).toArray(), "epoch " + e + ", part " + part);
          for (long i : got) {
            assertFalse(seen.get((int) i), "sample " + i + " in two parts");
            seen.set((int) i);
          }
        }
      }
      // Without wrapping an epoch draws every sample once: the parts cover all 14.
      assertEquals(14, seen.cardinality());
    }
  }

  @Test
  void shardingDrawsNeedsAnExplicitSeed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a", 3)
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "b", 1)
        .shard(2, 0).batchSize(0).build());
    assertEquals("class-probability draws with numParts = 2 need an explicit seed: every part must draw the same order "
        + "for the parts to be disjoint", e.getMessage());
  }

  @Test
  void theDrawnReaderYieldsEachPassesEpochOfThePartsDraws() {
    try (Hdf5Provider p = spec().shard(3, 1).batchSize(2).build()) {
      dev.minibatch.runtime.reader.Reader<dev.minibatch.runtime.io.SampleProcessor.Sample> r = p.drawnReader();
      for (int e = 0; e < 2; e++) {
        List<dev.minibatch.runtime.io.SampleProcessor.Sample> samples = r.toList();
        int[] expected = range(draws(e), 4, 9);
        assertEquals(expected.length, samples.size());
        for (int i = 0; i < expected.length; i++) {
          assertEquals(expected[i], samples.get(i).index());
          assertEquals(15.0 * (expected[i] % 7), samples.get(i).get("int/int32").getDouble(0, 0), 0.0);
        }
      }
    }
    try (Hdf5Provider p = Hdf5Provider.builder().add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a").batchSize(0).build()) {
      IllegalStateException e = assertThrows(IllegalStateException.class, p::drawnReader);
      assertTrue(e.getMessage().contains("does not draw them"), e.getMessage());
    }
  }
}
