package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Mixes of two shard sets whose samples say which they are: set A holds ids 0..599 in files of
 * 100, set B ids 10 000..10 299 in files of 50 (x = [id, id] float32, y = id mod 7 int32). The
 * expected orders follow from the formula in docs/shards.md, "Mixing shard sets", by hand.
 */
class MixedShardSetsTest {
  private static final int B0 = 10_000;
  @TempDir static Path dir;
  private static String a;
  private static String b;

  @BeforeAll
  static void write() {
    a = write("a", 0, 600, 100);
    b = write("b", B0, 300, 50);
  }

  private static String write(String name, int first, int n, int perFile) {
    return IdSamples.write(dir, name, first, n, perFile);
  }

  private static ShardProvider mix(double wa, double wb, Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder p = ShardProvider.mix().source(a, wa).source(b, wb).batchSize(30);
    settings.accept(p);
    return p.build();
  }

  /** The ids of one epoch, each row's label checked against its id. */
  private static List<Integer> epoch(Iterator<NamedBatch> it) {
    List<Integer> ids = new ArrayList<>();
    while (it.hasNext()) {
      NamedBatch batch = it.next();
      for (int r = 0; r < batch.countSamples(); r++) {
        int id = (int) batch.get("x").getFloat(r, 0);
        assertEquals(id, (int) batch.get("x").getFloat(r, 1));
        assertEquals(id % 7, batch.get("y").getInt(r), "label of sample " + id);
        ids.add(id);
      }
    }
    return ids;
  }

  private static List<Integer> epoch(ShardProvider p) {
    return epoch(p.iterator());
  }

  @Test
  void quotasAreFloorsPlusTheLargestRemainders() {
    assertArrayEquals(new int[] {600, 300}, MixOrder.quotas(new double[] {2, 1}, 900));
    // Thirds of 10: 3 each and one left, to the lower set on a tie.
    assertArrayEquals(new int[] {4, 3, 3}, MixOrder.quotas(new double[] {1, 1, 1}, 10));
    // 7 x (0.5, 0.3, 0.2) = 3.5, 2.1, 1.4: floors 3, 2, 1 and the one left to the largest remainder.
    assertArrayEquals(new int[] {4, 2, 1}, MixOrder.quotas(new double[] {0.5, 0.3, 0.2}, 7));
    assertArrayEquals(new int[] {2, 4, 1}, MixOrder.quotas(new double[] {0.3, 0.5, 0.2}, 7));
  }

  @Test
  void unshuffledTheSetsAlternateByWhenTheirNextSampleIsDue() {
    try (ShardProvider p = mix(2, 1, s -> {})) {
      List<Integer> ids = epoch(p);
      assertEquals(900, ids.size(), "by default an epoch is all samples of both sets");
      // A's j-th sample is due at (j + 1/2)/600, B's at (j + 1/2)/300: A B A, A B A, ...
      assertEquals(List.of(0, B0, 1, 2, B0 + 1, 3, 4, B0 + 2, 5), ids.subList(0, 9));
      int nextA = 0;
      int nextB = B0;
      for (int i = 0; i < ids.size(); i++) {
        int id = ids.get(i);
        assertEquals(i % 3 == 1 ? nextB++ : nextA++, id, "position " + i);
      }
    }
  }

  @Test
  void aSetWithMoreThanItsSizeRepeatsWholeEpochsOfItself() {
    try (ShardProvider p = mix(1, 1, s -> s.samplesPerEpoch(1200).shuffle(true).seed(5))) {
      int[] count = new int[B0 + 300];
      for (int id : epoch(p)) {
        count[id]++;
      }
      for (int i = 0; i < 600; i++) {
        assertEquals(1, count[i], "A's sample " + i + ": 600 of 1200 are A's, each once");
      }
      for (int i = B0; i < B0 + 300; i++) {
        assertEquals(2, count[i], "B's sample " + i + ": 600 of 1200 are B's, two of its epochs");
      }
    }
  }

  @Test
  void shorterEpochsWalkEachSetsStreamWithoutRepeats() {
    // 300 per epoch, 150 from each: A's 600 samples once over epochs 0-3, B's 300 over 0-1 and again over 2-3.
    try (ShardProvider p = mix(1, 1, s -> s.samplesPerEpoch(300).shuffle(true).seed(11))) {
      int[] a01 = new int[600];
      int[] b01 = new int[300];
      int[] b23 = new int[300];
      for (int e = 0; e < 4; e++) {
        List<Integer> ids = epoch(p);
        assertEquals(300, ids.size());
        assertEquals(150, ids.stream().filter(id -> id < B0).count(), "epoch " + e + ": A's quota");
        for (int id : ids) {
          if (id < B0) {
            a01[id]++;
          } else {
            (e < 2 ? b01 : b23)[id - B0]++;
          }
        }
      }
      for (int i = 0; i < 600; i++) {
        assertEquals(1, a01[i], "A's sample " + i);
      }
      for (int i = 0; i < 300; i++) {
        assertEquals(1, b01[i], "B's sample " + (B0 + i) + " in epochs 0-1");
        assertEquals(1, b23[i], "B's sample " + (B0 + i) + " in epochs 2-3");
      }
    }
  }

  @Test
  void theMixIsSeededAndShuffledAcrossTheSets() {
    List<Integer> first;
    try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(3))) {
      first = epoch(p);
    }
    try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(3).readers(2))) {
      assertEquals(first, epoch(p), "same seed, same order, with reader threads too");
    }
    // Shuffled, B's samples are not every third: the first 30 positions do not hold exactly 10.
    try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(3))) {
      List<Integer> ids = epoch(p);
      int[] perBatch = new int[30];
      for (int i = 0; i < ids.size(); i++) {
        perBatch[i / 30] += ids.get(i) >= B0 ? 1 : 0;
      }
      boolean uneven = false;
      for (int k : perBatch) {
        uneven |= k != 10;
      }
      assertTrue(uneven, "a shuffled mix draws the sets in a random order, not in turn");
    }
  }

  @Test
  void aMixResumesMidEpochAndRefusesAStateOfOtherWeights() {
    IterationState state;
    List<Integer> rest;
    try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(9).lastBatch(LastBatch.DISCARD))) {
      Iterator<NamedBatch> it = p.iterator();
      for (int i = 0; i < 7; i++) {
        epoch(List.of(it.next()).iterator());
      }
      state = p.saveState();
      rest = epoch(it);
    }
    try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(9).lastBatch(LastBatch.DISCARD))) {
      p.restoreState(state);
      assertEquals(rest, epoch(p), "the batches after the seventh");
    }
    try (ShardProvider p = mix(1, 1, s -> s.shuffle(true).seed(9).lastBatch(LastBatch.DISCARD))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(state));
      assertTrue(e.getMessage().contains("mix=600:600,300:300") && e.getMessage().contains("mix=600:450,300:450"),
          e.getMessage());
    }
  }

  @Test
  void twoTrainersShareTheMixedEpoch() {
    List<Integer> whole;
    try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(4))) {
      whole = epoch(p);
    }
    List<Integer> both = new ArrayList<>();
    List<List<Integer>> parts = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int part = t;
      try (ShardProvider p = mix(2, 1, s -> s.shuffle(true).seed(4).shard(2, part))) {
        parts.add(epoch(p));
      }
    }
    // Elastic: global batch j to trainer j mod 2.
    for (int j = 0; j < 30; j++) {
      both.addAll(parts.get(j % 2).subList((j / 2) * 30, (j / 2) * 30 + 30));
    }
    assertEquals(whole, both);
  }

  @Test
  void setsOfOtherSamplesDoNotMix() {
    String c;
    float[][] x = new float[10][3];
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(x))
        .label("y", Nd4j.createFromArray(new int[10])).batchSize(5).build()) {
      c = dir.resolve("c").toString();
      ShardWriter.builder().build().write(source, c);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardProvider.mix().source(a, 1).source(c, 1).batchSize(5).build());
    assertTrue(e.getMessage().contains(Path.of(c).getFileName().toString()) && e.getMessage().contains("2")
        && e.getMessage().contains("3"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> ShardProvider.builder(a).source(b, 1));
    assertEquals("the weight of " + b + " must be a finite number > 0, got 0.0",
        assertThrows(IllegalArgumentException.class, () -> ShardProvider.mix().source(b, 0)).getMessage());
    assertEquals("the weight of " + b + " must be a finite number > 0, got NaN",
        assertThrows(IllegalArgumentException.class, () -> ShardProvider.mix().source(b, Double.NaN)).getMessage());
    assertThrows(IllegalStateException.class, () -> ShardProvider.mix().batchSize(5).build());
  }
}
