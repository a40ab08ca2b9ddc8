package dev.minibatch.runtime;

import static dev.minibatch.runtime.ArrayDataProviderTest.epoch;
import static dev.minibatch.runtime.ArrayDataProviderTest.list;
import static dev.minibatch.runtime.ArrayDataProviderTest.provider;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Elastic shards (docs/engine.md, "Elastic shards"): the parts take turns at one global order of
 * batches, and a state saved by k parts at one step resumes under k' parts with every remaining
 * sample of the epoch exactly once. The expected batches are written out by hand, or come from a
 * provider with one part (no dealing), the global order itself.
 */
class ElasticShardsTest {
  private static ArrayDataProvider part(int n, int parts, int index, Consumer<ArrayDataProvider.Builder> settings) {
    return provider(n, b -> settings.accept(b.batchSize(2).shard(parts, index).elasticShards(true)));
  }

  @Test
  void batchesAreDealtInTurns() {
    // 10 samples in order, batches of 2: [0 1] [2 3] [4 5] [6 7] [8 9]; part p of 3 gets p, p + 3.
    assertEquals(List.of(list(0, 1), list(6, 7)), epoch(part(10, 3, 0, b -> {})));
    assertEquals(List.of(list(2, 3), list(8, 9)), epoch(part(10, 3, 1, b -> {})));
    assertEquals(List.of(list(4, 5)), epoch(part(10, 3, 2, b -> {})));
    // evenShards tops the last round up with the epoch's first batches.
    assertEquals(List.of(list(4, 5), list(0, 1)), epoch(part(10, 3, 2, b -> b.evenShards(true))));
    assertEquals(List.of(list(2, 3), list(8, 9)), epoch(part(10, 3, 1, b -> b.evenShards(true))));
    // The last-batch policy cuts the global order once: 11 samples, PAD_WRAP pads batch 5 with sample 0.
    assertEquals(List.of(list(4, 5), list(10, 0)), epoch(part(11, 3, 2, b -> b.lastBatch(LastBatch.PAD_WRAP))));
    assertEquals(List.of(list(0, 1), list(6, 7)), epoch(part(11, 3, 0, b -> b.lastBatch(LastBatch.DISCARD))));
  }

  @Test
  void aShuffledEpochIsTheOnePartOrderDealt() {
    List<List<Integer>> whole = epoch(provider(23, b -> b.batchSize(2).shuffle(true).seed(7)));
    for (int p = 0; p < 4; p++) {
      List<List<Integer>> expected = new ArrayList<>();
      for (int j = p; j < whole.size(); j += 4) {
        expected.add(whole.get(j));
      }
      assertEquals(expected, epoch(part(23, 4, p, b -> b.shuffle(true).seed(7))), "part " + p);
    }
  }

  @Test
  void aStateSavedByFourPartsResumesUnderThreeWithEverySampleOnce() {
    for (LastBatch policy : LastBatch.values()) {
      Consumer<ArrayDataProvider.Builder> settings = b -> b.shuffle(true).seed(11).lastBatch(policy);
      List<List<Integer>> whole = epoch(provider(23, b -> settings.accept(b.batchSize(2))));
      List<Integer> consumed = new ArrayList<>();
      String state = null;
      for (int p = 0; p < 4; p++) {
        try (ArrayDataProvider q = part(23, 4, p, settings)) {
          Iterator<NamedBatch> it = q.iterator();
          for (int step = 0; step < 2; step++) {
            consumed.addAll(ids(it.next()));
          }
          String s = q.saveState().encode();
          if (state != null) {
            assertEquals(state, s, "every part saves the same state at the same step");
          }
          state = s;
        }
      }
      List<Integer> resumed = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        try (ArrayDataProvider q = part(23, 3, p, settings)) {
          q.restoreState(IterationState.decode(state));
          List<List<Integer>> rest = epoch(q);
          List<List<Integer>> expected = new ArrayList<>();
          for (int j = 8 + p; j < whole.size(); j += 3) {
            expected.add(whole.get(j));
          }
          assertEquals(expected, rest, policy + ", part " + p + " of 3 after the restore");
          rest.forEach(resumed::addAll);
        }
      }
      List<Integer> all = new ArrayList<>(consumed);
      all.addAll(resumed);
      List<Integer> wholeRows = whole.stream().flatMap(List::stream).collect(Collectors.toList());
      assertEquals(sorted(wholeRows), sorted(all), policy + ": the 4 parts' first 2 steps and the 3 parts' rest");
      if (policy == LastBatch.PARTIAL) {
        assertEquals(IntStream.range(0, 23).boxed().collect(Collectors.toList()), sorted(all));
      }
    }
  }

  @Test
  void theEpochAfterAResumeIsDealtFromItsStart() {
    Consumer<ArrayDataProvider.Builder> settings = b -> b.shuffle(true).seed(3);
    String state;
    try (ArrayDataProvider q = part(12, 2, 0, settings)) {
      q.iterator().next();
      state = q.saveState().encode();
    }
    List<List<Integer>> secondEpoch;
    try (ArrayDataProvider whole = provider(12, b -> settings.accept(b.batchSize(2)))) {
      epoch(whole);
      secondEpoch = epoch(whole);
    }
    try (ArrayDataProvider q = part(12, 3, 1, settings)) {
      q.restoreState(IterationState.decode(state));
      epoch(q);
      assertEquals(List.of(secondEpoch.get(1), secondEpoch.get(4)), epoch(q));
    }
  }

  @Test
  void statesOfOtherShardingAreRefusedWithTheFix() {
    String plain;
    try (ArrayDataProvider q = provider(12, b -> b.batchSize(2).shard(2, 0).shuffle(true).seed(3))) {
      q.iterator().next();
      plain = q.saveState().encode();
    }
    try (ArrayDataProvider q = part(12, 2, 0, b -> b.shuffle(true).seed(3))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> q.restoreState(IterationState.decode(plain)));
      assertTrue(e.getMessage().contains("without elasticShards"), e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> provider(12, b -> b.batchSize(0).elasticShards(true)));
    assertTrue(e.getMessage().contains("batch size"), e.getMessage());
  }

  private static List<Integer> ids(NamedBatch b) {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < b.rows(); r++) {
      out.add((int) b.get("data").getFloat(r, 0));
    }
    return out;
  }

  private static List<Integer> sorted(List<Integer> v) {
    return v.stream().sorted().collect(Collectors.toList());
  }
}
