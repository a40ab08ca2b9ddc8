package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/shards.md, "Each trainer reads its share": trainers of one set in {@code partitions(C)} read
 * the global batches of one formula, each about {@code 1/k} of the bytes (counted by Hadoop's own
 * statistics of a local file system under a scheme of this test's), and resume under another
 * trainer count with every remaining sample exactly once. The expected orders are recomputed here
 * from the text of the docs ({@link OrderFormulaTest}'s derive and draw), or worked by hand.
 *
 * <p>Set A: ids 0..1599 in 64 files of 25, read with {@code partitions(8)}, batches of 10, window
 * 50 (two files): a partition holds 8 files, 200 samples, 20 batches; no tail. Set T: ids 0..1002
 * in 33 files of 30 and one of 13, {@code partitions(8)}, batches of 12: {@code L} = 120 and a tail
 * of 43.
 */
class TrainerSharesTest {
  private static final long SEED = 42;
  private static final int C = 8;
  private static final int B = 10;
  private static final int W = 50;

  @TempDir static Path dir;
  private static String a;
  private static String t;
  private static long aBytes;

  @BeforeAll
  static void write() {
    a = CountingFileSystem.SCHEME + "://" + IdSamples.write(dir, "a", 0, 1600, 25);
    t = CountingFileSystem.SCHEME + "://" + IdSamples.write(dir, "t", 0, 1003, 30);
    aBytes = ShardSet.open(a.substring(a.indexOf("://") + 3)).index().files().stream()
        .mapToLong(ShardIndex.Entry::bytes).sum();
  }

  private static ShardProvider trainer(String set, int batch, int k, int p) {
    return trainer(set, batch, k, p, SEED);
  }

  private static ShardProvider trainer(String set, int batch, int k, int p, long seed) {
    return ShardProvider.builder(set).configuration(CountingFileSystem.conf()).batchSize(batch)
        .lastBatch(LastBatch.PARTIAL).shuffle(true).seed(seed).shuffleWindow(W).partitions(C).shard(k, p).build();
  }

  private static int[] ids(NamedBatch batch) {
    int[] ids = new int[batch.countSamples()];
    for (int r = 0; r < ids.length; r++) {
      ids[r] = (int) batch.get("x").getFloat(r, 0);
    }
    return ids;
  }

  // ---- The formula, from the text of docs/shards.md ----

  /** {@code 0 .. n-1} in the scrambled bit-reversed order of partition {@code c} in epoch {@code e}. */
  static int[] scrambled(int n, long s, int e, int c) {
    int d = 0;
    while ((1 << d) < n) {
      d++;
    }
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < (1 << d); i++) {
      long node = 1;
      int x = 0;
      for (int l = 0; l < d; l++) {
        int bit = (i >> l) & 1;
        if ((OrderFormulaTest.derive(s, e, 4, c, node) & 1) == 1) {
          bit = 1 - bit;
        }
        x = 2 * x + bit;
        node = 2 * node + bit;
      }
      if (x < n) {
        out.add(x);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Epoch {@code e} of a set of these file sizes in {@code c} partitions, batches of {@code b}, window {@code w}. */
  static int[] expected(int[] files, int parts, int b, int w, long s, int e) {
    int[] firsts = new int[files.length];
    for (int f = 1; f < files.length; f++) {
      firsts[f] = firsts[f - 1] + files[f - 1];
    }
    int strata = (files.length + parts - 1) / parts;
    int[] slots = new int[strata * parts];
    Arrays.fill(slots, -1);
    for (int f = 0; f < files.length; f++) {
      slots[f] = f;
    }
    int fewest = 0;
    for (int g = 0; g < strata; g++) {
      OrderFormulaTest.draw(slots, g * parts, (g + 1) * parts, OrderFormulaTest.derive(s, e, 3, g));
      if ((g + 1) * parts <= files.length) {
        fewest += IntStream.range(g * parts, (g + 1) * parts).map(f -> files[f]).min().getAsInt();
      }
    }
    int l = b * (fewest / b);
    List<int[]> streams = new ArrayList<>();
    for (int c = 0; c < parts; c++) {
      List<Integer> mine = new ArrayList<>();
      for (int g = 0; g < strata; g++) {
        if (slots[g * parts + c] >= 0) {
          mine.add(slots[g * parts + c]);
        }
      }
      List<Integer> stream = new ArrayList<>();
      for (int i : scrambled(mine.size(), s, e, c)) {
        int f = mine.get(i);
        for (int k = 0; k < files[f]; k++) {
          stream.add(firsts[f] + k);
        }
      }
      int[] st = stream.stream().mapToInt(Integer::intValue).toArray();
      for (int win = 0; win * w < l; win++) {
        OrderFormulaTest.draw(st, win * w, Math.min(l, (win + 1) * w), OrderFormulaTest.derive(s, e, 5, c, win));
      }
      streams.add(st);
    }
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < l; r += b) {
      for (int[] st : streams) {
        for (int k = r; k < r + b; k++) {
          out.add(st[k]);
        }
      }
    }
    int tailStart = out.size();
    for (int[] st : streams) {
      for (int k = l; k < st.length; k++) {
        out.add(st[k]);
      }
    }
    int[] order = out.stream().mapToInt(Integer::intValue).toArray();
    for (int win = 0; tailStart + win * w < order.length; win++) {
      OrderFormulaTest.draw(order, tailStart + win * w, Math.min(order.length, tailStart + (win + 1) * w),
          OrderFormulaTest.derive(s, e, 5, parts, win));
    }
    return order;
  }

  private static void assertBatches(List<int[]> expected, List<int[]> actual, String what) {
    assertEquals(expected.size(), actual.size(), what + ": batches");
    for (int j = 0; j < expected.size(); j++) {
      assertArrayEquals(expected.get(j), actual.get(j), what + ", global batch " + j);
    }
  }

  // ---- Reading ----

  /** One epoch of each of {@code k} trainers, one after another: their batches and bytes read. */
  private record Epoch(List<List<int[]>> perTrainer, long[] bytes) {
    /** The global batches: trainer {@code (j - start) mod k}'s next, in turn. */
    List<int[]> global() {
      List<int[]> out = new ArrayList<>();
      int k = perTrainer.size();
      for (int j = 0; ; j++) {
        List<int[]> mine = perTrainer.get(j % k);
        if (j / k >= mine.size()) {
          return out;
        }
        out.add(mine.get(j / k));
      }
    }
  }

  /** Reads {@code epochs} epochs with {@code k} trainers, each restored from {@code state} if not null. */
  private static List<Epoch> read(String set, int batch, int k, int epochs, IterationState state) {
    return read(set, batch, k, epochs, state, SEED);
  }

  /** {@link #read} by trainers built with {@code seed} (a restored state's seed replaces it). */
  private static List<Epoch> read(String set, int batch, int k, int epochs, IterationState state, long seed) {
    List<Epoch> out = new ArrayList<>();
    for (int e = 0; e < epochs; e++) {
      out.add(new Epoch(new ArrayList<>(), new long[k]));
    }
    for (int p = 0; p < k; p++) {
      try (ShardProvider trainer = trainer(set, batch, k, p, seed)) {
        if (state != null) {
          trainer.restoreState(state);
        }
        for (int e = 0; e < epochs; e++) {
          long before = CountingFileSystem.bytesRead();
          List<int[]> mine = new ArrayList<>();
          for (NamedBatch b : trainer) {
            mine.add(ids(b));
          }
          out.get(e).bytes[p] = CountingFileSystem.bytesRead() - before;
          out.get(e).perTrainer.add(mine);
        }
      }
    }
    return out;
  }

  @Test
  void oneTwoAndFourTrainersReadTheSameGlobalBatchesEachItsShareOfTheBytes() {
    int[] files = new int[64];
    Arrays.fill(files, 25);
    for (int k : new int[] {1, 2, 4}) {
      List<Epoch> epochs = read(a, B, k, 2, null);
      for (int e = 0; e < 2; e++) {
        Epoch epoch = epochs.get(e);
        assertBatches(OrderFormulaTest.batches(expected(files, C, B, W, SEED, e), B), epoch.global(), k + " trainers, epoch " + e);
        for (int p = 0; p < k; p++) {
          assertTrue(epoch.bytes[p] <= 1.1 * aBytes / k, k + " trainers, epoch " + e + ", trainer " + p + " read "
              + epoch.bytes[p] + " bytes of the set's " + aBytes);
        }
      }
      // Epoch 0 starts with an empty cache: every file read once, by one trainer.
      assertEquals(aBytes, Arrays.stream(epochs.get(0).bytes).sum(), k + " trainers: bytes of epoch 0");
    }
  }

  @Test
  void aTailAndUnequalFilesKeepOneGlobalOrderForEveryTrainerCountThatDividesThePartitions() {
    int[] files = new int[34];
    Arrays.fill(files, 30);
    files[33] = 13;
    List<int[]> expected = OrderFormulaTest.batches(expected(files, C, 12, W, SEED, 0), 12);
    assertEquals(IntStream.range(0, 1003).boxed().toList(),
        expected.stream().flatMapToInt(IntStream::of).sorted().boxed().toList(), "the formula's epoch holds each sample once");
    for (int k : new int[] {1, 2, 4, 8}) {
      assertBatches(expected, read(t, 12, k, 1, null).get(0).global(), k + " trainers");
    }
  }

  /**
   * By hand, without shuffle: 18 samples in files of 4, 4, 4, 4, 2, partitions(2), batches of 2.
   * Strata {0, 1}, {2, 3}, {4, -}: partition 0 reads files 0, 2, 4 (samples 0-3, 8-11, 16-17),
   * partition 1 files 1, 3 (4-7, 12-15). L = 2 · floor((4 + 4) / 2) = 8: partition 0 leaves 16, 17
   * to the tail.
   */
  @Test
  void anUnshuffledSetInPartitionsByHand() {
    String small = IdSamples.write(dir, "small", 0, 18, 4);
    int[][] expected = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, {12, 13}, {10, 11}, {14, 15}, {16, 17}};
    for (int k : new int[] {1, 2}) {
      for (int p = 0; p < k; p++) {
        try (ShardProvider trainer = ShardProvider.builder(small).batchSize(2).partitions(2).shard(k, p).build()) {
          List<int[]> mine = new ArrayList<>();
          for (NamedBatch b : trainer) {
            mine.add(ids(b));
          }
          List<int[]> want = new ArrayList<>();
          for (int j = p; j < expected.length; j += k) {
            want.add(expected[j]);
          }
          assertBatches(want, mine, k + " trainers, trainer " + p);
          assertEquals(k == 1 ? 5 : p == 0 ? 3 : 2, trainer.fileLoads(), k + " trainers, trainer " + p + ": files read");
        }
      }
    }
  }

  /**
   * {@code k} trainers each take {@code steps} batches of epoch 0 and save; {@code k2} trainers
   * restore that state and read the rest of it: every sample once, the global batches of the
   * formula, and each new trainer reads about {@code 1/k2} of the bytes.
   */
  private static void resume(int k, int steps, int k2) {
    resume(k, steps, k2, SEED);
  }

  /** {@link #resume}, the new trainers built with {@code seed}: the state's seed replaces it. */
  private static void resume(int k, int steps, int k2, long seed) {
    List<int[]> global = OrderFormulaTest.batches(expected(filesOfA(), C, B, W, SEED, 0), B);
    List<int[]> before = new ArrayList<>();
    String saved = null;
    for (int p = 0; p < k; p++) {
      try (ShardProvider trainer = trainer(a, B, k, p)) {
        BatchIterator<NamedBatch> it = trainer.iterator();
        for (int q = 0; q < steps; q++) {
          int[] ids = ids(it.next());
          assertArrayEquals(global.get(p + q * k), ids, k + " trainers, trainer " + p + ", batch " + q);
          before.add(ids);
        }
        String state = trainer.saveState().encode();
        assertTrue(saved == null || saved.equals(state), "every trainer saves the same state");
        saved = state;
      }
    }
    Epoch rest = read(a, B, k2, 1, IterationState.decode(saved), seed).get(0);
    int s = k * steps;
    assertBatches(global.subList(s, global.size()), rest.global(), k + " -> " + k2 + " trainers, from global batch " + s);
    int[] all = IntStream.concat(before.stream().flatMapToInt(IntStream::of),
        rest.global().stream().flatMapToInt(IntStream::of)).sorted().toArray();
    assertArrayEquals(IntStream.range(0, 1600).toArray(), all, k + " -> " + k2 + ": every sample of the epoch once");
    for (int p = 0; p < k2; p++) {
      assertTrue(rest.bytes[p] <= 1.1 * aBytes / k2, k + " -> " + k2 + ", trainer " + p + " read " + rest.bytes[p]
          + " bytes of the set's " + aBytes);
    }
  }

  private static int[] filesOfA() {
    int[] files = new int[64];
    Arrays.fill(files, 25);
    return files;
  }

  @Test
  void fourTrainersResumeAsTwo() {
    resume(4, 3, 2);
  }

  /** 2 trainers stop after 6 global batches: 8 trainers resume at partition 6, so trainer p now reads partition (6 + p) mod 8. */
  @Test
  void twoTrainersResumeAsEight() {
    resume(2, 3, 8);
  }

  /**
   * Trainers built with another seed take the state's (IterationState's one rule), and the files
   * they read ahead and keep follow the order they read, not the one they were built with: each
   * still reads its share.
   */
  @Test
  void trainersBuiltWithAnotherSeedResumeInTheStatesOrderReadingTheirShare() {
    resume(4, 3, 2, SEED + 1);
  }

  // ---- Refused ----

  @Test
  void aTrainerCountThatDoesNotDivideThePartitionsIsRefusedWithTheFix() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> trainer(a, B, 3, 0));
    assertTrue(e.getMessage().contains("partitions(8) serves trainer counts that divide 8 (1, 2, 4, 8)"), e.getMessage());
    assertTrue(e.getMessage().contains("partitions(n) with n a multiple of 3 (e.g. 24)"), e.getMessage());
  }

  @Test
  void whatThePartitionsCannotServeIsRefused() {
    String local = a.substring(a.indexOf("://") + 3);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardProvider.builder(local).batchSize(B).partitions(C)
        .shard(2, 0).elasticShards(false).build()).getMessage().contains("use elasticShards(true)"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardProvider.builder(local).batchSize(B).partitions(C)
        .lastBatch(LastBatch.ROLL_OVER).build()).getMessage().contains("use PAD_WRAP, PAD_CONSTANT, PARTIAL or DISCARD"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardProvider.mix().source(local, 1).source(local, 1)
        .batchSize(B).partitions(C).build()).getMessage().contains("does not read a mix"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardProvider.builder(local).batchSize(B)
        .samplesPerEpoch(100).partitions(C).build()).getMessage().contains("does not read samplesPerEpoch(100)"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardProvider.builder(local).batchSize(300)
        .partitions(C).build()).getMessage().contains("holds 1600 samples, fewer than a batch per partition (2400)"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardProvider.builder(local).batchSize(B)
        .partitions(C).cacheFiles(1).shuffle(true).seed(1).shuffleWindow(W).build()).getMessage()
        .contains("the smallest cache that works is 16"));
  }

  @Test
  void aStateOfAnotherPartitionCountIsRefused() {
    String saved;
    try (ShardProvider p = trainer(a, B, 2, 0)) {
      p.iterator().next();
      saved = p.saveState().encode();
    }
    try (ShardProvider p = ShardProvider.builder(a).configuration(CountingFileSystem.conf()).batchSize(B)
        .shuffle(true).seed(SEED).shuffleWindow(W).partitions(4).shard(2, 0).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> p.restoreState(IterationState.decode(saved)));
      assertTrue(e.getMessage().contains("partitions=8") && e.getMessage().contains("partitions=4"), e.getMessage());
    }
  }
}
