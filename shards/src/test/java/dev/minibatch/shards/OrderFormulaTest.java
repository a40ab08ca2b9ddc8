package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The epoch orders of docs/shards.md ("The global order", "Mixing shard sets") recomputed here from
 * the text alone, without {@code GlobalOrder}, {@code MixOrder} or {@code Seeds}, and compared with
 * what providers deliver batch by batch. A saved state names positions of these orders, so a change
 * of the derivation changes what every checkpoint means: this test fails on it. A few values are
 * pinned as literals too, so that a change this test's copy of the formula would follow still fails.
 *
 * <p>Sample {@code id} has data {@code [id, id + 0.5]} float32 and label {@code id} int32. Set A: ids
 * 0..56 in files of 7, 7, 6, 3, 7, 7, 4, 7, 7, 2 (written in four segments); B: ids 1000..1029 in
 * files of 8, 8, 8, 6; C: ids 2000..2012 in files of 5, 5, 3.
 */
class OrderFormulaTest {
  private static final int[] A_FILES = {7, 7, 6, 3, 7, 7, 4, 7, 7, 2};
  private static final int A_N = 57;
  private static final int[] B_FILES = {8, 8, 8, 6};
  private static final int[] C_FILES = {5, 5, 3};
  private static final int B0 = 1000;
  private static final int C0 = 2000;

  @TempDir static Path dir;
  private static String a;
  private static String b;
  private static String c;

  @BeforeAll
  static void write() {
    a = dir.resolve("a").toString();
    ShardWriter w = ShardWriter.builder().samplesPerFile(7).build();
    // Segments of 20, 3, 18 and 16 samples: files of 7 cut at each segment's end, so sizes differ inside the set.
    int[] cuts = {0, 20, 23, 41, 57};
    List<ShardWriter.WrittenSegment> segments = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      try (ShardWriter.Segment segment = w.segment(a, p); ArrayDataProvider s = samples(cuts[p], cuts[p + 1])) {
        segments.add(segment.write(s).finish());
      }
    }
    w.commit(a, segments);
    b = dir.resolve("b").toString();
    try (ArrayDataProvider s = samples(B0, B0 + 30)) {
      ShardWriter.builder().samplesPerFile(8).build().write(s, b);
    }
    c = dir.resolve("c").toString();
    try (ArrayDataProvider s = samples(C0, C0 + 13)) {
      ShardWriter.builder().samplesPerFile(5).build().write(s, c);
    }
    assertArrayEquals(A_FILES, fileSizes(a));
    assertArrayEquals(B_FILES, fileSizes(b));
    assertArrayEquals(C_FILES, fileSizes(c));
  }

  private static ArrayDataProvider samples(int from, int to) {
    float[][] x = new float[to - from][2];
    int[] y = new int[to - from];
    for (int i = from; i < to; i++) {
      x[i - from][0] = i;
      x[i - from][1] = i + 0.5f;
      y[i - from] = i;
    }
    return ArrayDataProvider.builder().data("x", Nd4j.create(x)).label("y", Nd4j.createFromArray(y))
        .batchSize(6).build();
  }

  private static int[] fileSizes(String set) {
    return ShardSet.open(set).index().files().stream().mapToInt(ShardIndex.Entry::samples).toArray();
  }

  // ---- The formula, from the text of docs/shards.md ----

  /** SplitMix64's finaliser. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static long derive(long s, long... coordinates) {
    long h = mix(s);
    for (long c : coordinates) {
      h = mix(h ^ mix(c + 0x9E3779B97F4A7C15L));
    }
    return h;
  }

  /** A draw from {@code x} of positions {@code [from, to)}: Fisher–Yates from the last position down. */
  static void draw(int[] order, int from, int to, long x) {
    SplittableRandom r = new SplittableRandom(x);
    for (int i = to - 1; i > from; i--) {
      int j = from + r.nextInt(i - from + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }

  /** Epoch {@code e}'s global order of a set of files of these sizes: positions in the set, 0 .. N-1. */
  private static int[] globalOrder(int[] files, boolean shuffle, long s, int window, int e) {
    int n = IntStream.of(files).sum();
    int[] firsts = new int[files.length];
    for (int f = 1; f < files.length; f++) {
      firsts[f] = firsts[f - 1] + files[f - 1];
    }
    int[] fileOrder = IntStream.range(0, files.length).toArray();
    if (shuffle) {
      draw(fileOrder, 0, files.length, derive(s, e, 0));
    }
    int[] order = new int[n];
    int at = 0;
    for (int f : fileOrder) {
      for (int k = 0; k < files[f]; k++) {
        order[at++] = firsts[f] + k;
      }
    }
    if (shuffle) {
      for (int w = 0; w * window < n; w++) {
        draw(order, w * window, Math.min(n, (w + 1) * window), derive(s, e, 1, w));
      }
    }
    return order;
  }

  /**
   * Quotas of {@code total} samples by weight: {@code floor(E · w_i / Σw)}, the rest one each to the
   * largest remainders (lower i on a tie), in exact arithmetic over the weights' binary values.
   */
  private static int[] quotas(double[] weights, int total) {
    BigDecimal sum = BigDecimal.ZERO;
    for (double w : weights) {
      sum = sum.add(new BigDecimal(w));
    }
    int[] q = new int[weights.length];
    BigDecimal[] rest = new BigDecimal[weights.length]; // remainder · Σw, comparable across sets
    int left = total;
    for (int i = 0; i < weights.length; i++) {
      BigDecimal share = new BigDecimal(weights[i]).multiply(BigDecimal.valueOf(total));
      BigDecimal[] qr = share.divideAndRemainder(sum);
      q[i] = qr[0].intValueExact();
      rest[i] = qr[1];
      left -= q[i];
    }
    Integer[] byRest = IntStream.range(0, weights.length).boxed().toArray(Integer[]::new);
    Arrays.sort(byRest, Comparator.<Integer, BigDecimal>comparing(i -> rest[i]).reversed()
        .thenComparing(Comparator.naturalOrder()));
    for (int k = 0; k < left; k++) {
      q[byRest[k]]++;
    }
    return q;
  }

  /**
   * Which set each position of epoch {@code e} draws from: every set's j-th sample is due at {@code
   * (j + 1/2) / q_i}, positions go to the samples by due time (lower i on a tie); with shuffle the
   * assignment is permuted by a draw from {@code Seeds.derive(s, e, 2)}.
   */
  private static int[] assignment(int[] q, boolean shuffle, long s, int e) {
    List<int[]> due = new ArrayList<>(); // {i, j}
    for (int i = 0; i < q.length; i++) {
      for (int j = 0; j < q[i]; j++) {
        due.add(new int[] {i, j});
      }
    }
    // (2j + 1) / (2 q_i) compared exactly: (2j + 1) · q_k against (2l + 1) · q_i.
    due.sort((x, y) -> {
      int byTime = Long.compare((2L * x[1] + 1) * q[y[0]], (2L * y[1] + 1) * q[x[0]]);
      return byTime != 0 ? byTime : Integer.compare(x[0], y[0]);
    });
    int[] sets = due.stream().mapToInt(d -> d[0]).toArray();
    if (shuffle) {
      draw(sets, 0, sets.length, derive(s, e, 2));
    }
    return sets;
  }

  /** A set of a mix: its files and the id of its first sample. */
  private record MixSet(int[] files, int firstId) {
    int size() {
      return IntStream.of(files).sum();
    }
  }

  /**
   * Epoch {@code e} of a mix, as sample ids: set i's stream is its global orders of epochs 0, 1, …
   * one after another, seeded with {@code Seeds.derive(s, 2, i)}; the epoch takes its positions
   * {@code [e·q_i, (e+1)·q_i)}, in turn, at the positions assigned to set i.
   */
  private static int[] mixOrder(List<MixSet> sets, double[] weights, int total, boolean shuffle, long s, int window,
      int e) {
    int[] q = quotas(weights, total);
    int[] drawsFrom = assignment(q, shuffle, s, e);
    long[] next = new long[sets.size()];
    for (int i = 0; i < q.length; i++) {
      next[i] = (long) e * q[i];
    }
    int[] ids = new int[total];
    for (int p = 0; p < total; p++) {
      int i = drawsFrom[p];
      MixSet set = sets.get(i);
      long t = next[i]++;
      int[] order = globalOrder(set.files(), shuffle, derive(s, 2, i), window, (int) (t / set.size()));
      ids[p] = set.firstId() + order[(int) (t % set.size())];
    }
    return ids;
  }

  /** Positions in a set as the ids of its samples. */
  private static int[] ids(int[] order, int firstId) {
    return IntStream.of(order).map(k -> k + firstId).toArray();
  }

  // ---- What providers deliver ----

  /** The ids of the next epoch's batches, one array per batch, every row checked against its id. */
  private static List<int[]> epoch(ShardProvider p) {
    List<int[]> out = new ArrayList<>();
    for (NamedBatch batch : p) {
      int[] ids = new int[batch.countSamples()];
      for (int r = 0; r < ids.length; r++) {
        ids[r] = batch.get("y").getInt(r);
        assertEquals(ids[r], batch.get("x").getFloat(r, 0), 0f, "data of sample " + ids[r]);
        assertEquals(ids[r] + 0.5f, batch.get("x").getFloat(r, 1), 0f, "data of sample " + ids[r]);
      }
      out.add(ids);
    }
    return out;
  }

  /** An epoch's order cut into batches of {@code size}, the last one shorter (PARTIAL). */
  static List<int[]> batches(int[] order, int size) {
    List<int[]> out = new ArrayList<>();
    for (int from = 0; from < order.length; from += size) {
      out.add(Arrays.copyOfRange(order, from, Math.min(order.length, from + size)));
    }
    return out;
  }

  private static void assertBatches(List<int[]> expected, List<int[]> actual, String what) {
    assertEquals(expected.size(), actual.size(), what + ": batches");
    for (int k = 0; k < expected.size(); k++) {
      assertArrayEquals(expected.get(k), actual.get(k), what + ", batch " + k);
    }
  }

  private static int[] flat(List<int[]> batches) {
    return batches.stream().flatMapToInt(IntStream::of).toArray();
  }

  private static ShardProvider single(Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder p = ShardProvider.builder(a).batchSize(8).lastBatch(LastBatch.PARTIAL);
    settings.accept(p);
    return p.build();
  }

  private static ShardProvider mixOf(double[] weights, Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder p = ShardProvider.mix().batchSize(8).lastBatch(LastBatch.PARTIAL);
    String[] locations = {a, b, c};
    for (int i = 0; i < weights.length; i++) {
      p.source(locations[i], weights[i]);
    }
    settings.accept(p);
    return p.build();
  }

  private static final List<MixSet> ABC = List.of(new MixSet(A_FILES, 0), new MixSet(B_FILES, B0), new MixSet(C_FILES, C0));

  // ---- One set ----

  @Test
  void aShuffledSetIsTheDocumentedOrderEveryEpoch() {
    for (long seed : new long[] {20_261_128L, -7L}) {
      for (int readers : new int[] {0, 2}) {
        // A window of 10: smaller than the set, no multiple of any file size, so windows cut files.
        try (ShardProvider p = single(s -> s.shuffle(true).seed(seed).shuffleWindow(10).readers(readers))) {
          for (int e = 0; e < 4; e++) {
            int[] order = ids(globalOrder(A_FILES, true, seed, 10, e), 0);
            assertBatches(batches(order, 8), epoch(p), "seed " + seed + ", readers " + readers + ", epoch " + e);
          }
        }
      }
    }
  }

  /**
   * A set of more than a million samples, whose windows are drawn on several threads and filled from
   * the files' positions window by window: the documented order all the same, with files of
   * unequal sizes (one empty) cut by windows that are no multiple of them.
   */
  @Test
  void aLargeSetIsTheDocumentedOrderToo() {
    int[] sizes = new int[1_200];
    List<ShardIndex.Entry> entries = new ArrayList<>();
    long first = 0;
    for (int f = 0; f < sizes.length; f++) {
      sizes[f] = f == 17 ? 0 : 900 + (f * 37) % 250;
      entries.add(new ShardIndex.Entry("f" + f, first, sizes[f], 1, 0));
      first += sizes[f];
    }
    assertTrue(first > 1 << 20, "more samples than the orders draw on one thread: " + first);
    ShardIndex index = new ShardIndex(List.of(), List.of(), entries);
    for (boolean shuffle : new boolean[] {true, false}) {
      GlobalOrder order = new GlobalOrder(index, shuffle, 20_261_129L, 3_333);
      for (int e = 0; e < 2; e++) {
        int[] out = new int[order.length()];
        order.fill(e, out);
        assertArrayEquals(globalOrder(sizes, shuffle, 20_261_129L, 3_333, e), out, "shuffle " + shuffle + ", epoch " + e);
      }
    }
  }

  @Test
  void theDefaultWindowShufflesTheWholeSet() {
    try (ShardProvider p = single(s -> s.shuffle(true).seed(3))) {
      for (int e = 0; e < 3; e++) {
        assertArrayEquals(ids(globalOrder(A_FILES, true, 3, 65_536, e), 0), flat(epoch(p)), "epoch " + e);
      }
    }
  }

  @Test
  void anUnshuffledSetIsInIndexOrderEveryEpoch() {
    try (ShardProvider p = single(s -> s.shuffle(false).seed(20_261_128L).shuffleWindow(10))) {
      for (int e = 0; e < 3; e++) {
        assertBatches(batches(IntStream.range(0, 57).toArray(), 8), epoch(p), "epoch " + e);
      }
    }
  }

  /**
   * docs/shards.md: a single set with {@code samplesPerEpoch} reads its stream, its global orders
   * seeded with {@code s} itself (not {@code Seeds.derive(s, 2, 0)} as in a mix of several), for
   * {@code builder(a)} and for {@code mix()} of one source alike.
   */
  @Test
  void aSingleSetWithSamplesPerEpochReadsItsStreamSeededAsDocumented() {
    double[] one = {1};
    try (ShardProvider p = single(s -> s.samplesPerEpoch(20).shuffle(true).seed(13).shuffleWindow(10));
        ShardProvider q = mixOf(one, s -> s.samplesPerEpoch(20).shuffle(true).seed(13).shuffleWindow(10))) {
      for (int e = 0; e < 4; e++) {
        int[] order = new int[20];
        for (int t = 0; t < 20; t++) {
          long position = (long) e * 20 + t;
          order[t] = globalOrder(A_FILES, true, 13, 10, (int) (position / A_N))[(int) (position % A_N)];
        }
        assertBatches(batches(order, 8), epoch(p), "builder(a), epoch " + e);
        assertBatches(batches(order, 8), epoch(q), "mix() of a alone, epoch " + e);
      }
    }
  }

  /**
   * Literal values of the formula, so that a change of it fails even where this test's copy of the
   * formula followed: seed 20 261 128, window 10, set A.
   */
  @Test
  void pinnedValuesOfTheOrderOfOneSet() {
    int[] epoch0 = {9, 10, 7, 12, 43, 42, 41, 13, 8, 11};
    int[] epoch1 = {20, 6, 5, 2, 21, 1, 4, 22, 3, 0};
    assertArrayEquals(epoch0, Arrays.copyOf(ids(globalOrder(A_FILES, true, 20_261_128L, 10, 0), 0), 10));
    assertArrayEquals(epoch1, Arrays.copyOf(ids(globalOrder(A_FILES, true, 20_261_128L, 10, 1), 0), 10));
    try (ShardProvider p = single(s -> s.shuffle(true).seed(20_261_128L).shuffleWindow(10))) {
      assertArrayEquals(epoch0, Arrays.copyOf(flat(epoch(p)), 10), "epoch 0");
      assertArrayEquals(epoch1, Arrays.copyOf(flat(epoch(p)), 10), "epoch 1");
    }
  }

  // ---- Mixes ----

  @Test
  void quotasAreFloorsThenTheLargestRemainders() {
    // This test's quota rule against values by hand; the providers' quotas are in the orders below.
    // 41 x (0.5, 0.3, 0.2) = 20.5, 12.3, 8.2: floors 20, 12, 8 and the one left to A's 0.5.
    assertArrayEquals(new int[] {21, 12, 8}, quotas(new double[] {0.5, 0.3, 0.2}, 41));
    assertArrayEquals(new int[] {10, 30, 20}, quotas(new double[] {1, 3, 2}, 60));
    // 10 / 3 each: 3, 3, 3 and the one left to the lower set on a tie.
    assertArrayEquals(new int[] {4, 3, 3}, quotas(new double[] {1, 1, 1}, 10));
    // 87 x (2/3, 1/3): 58, 29 exactly, more than A's 57 samples, fewer than B's 30.
    assertArrayEquals(new int[] {58, 29}, quotas(new double[] {2, 1}, 87));
  }

  /**
   * docs/shards.md: equal remainders go to the lower set. Shares whose exact remainders are equal
   * differ in their last bit when computed as {@code w_i / Σw · E} in doubles, which the provider did
   * before (quotas 26, 15, 15 here).
   */
  @Test
  void equalRemaindersOfUnequalWeightsGoToTheLowerSet() {
    double[] weights = {20, 11, 11};
    // 56 x (20, 11, 11) / 42 = 26 2/3, 14 2/3, 14 2/3: floors 26, 14, 14; the 2 left go to A and B.
    assertArrayEquals(new int[] {27, 15, 14}, quotas(weights, 56));
    try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(56))) {
      int[] ids = flat(epoch(p));
      int[] perSet = new int[3];
      for (int id : ids) {
        perSet[id / B0]++;
      }
      assertArrayEquals(new int[] {27, 15, 14}, perSet, "samples of A, B and C in epoch 0");
      assertArrayEquals(mixOrder(ABC, weights, 56, false, 0, 1, 0), ids);
    }
  }

  @Test
  void aShuffledMixOfThreeSetsIsTheDocumentedOrderEveryEpoch() {
    double[] weights = {0.5, 0.3, 0.2};
    // Quotas 21, 12, 8 of 41: A's and B's epochs span several of the mix's, C's end inside epoch 1.
    try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(41).shuffle(true).seed(77).shuffleWindow(10))) {
      for (int e = 0; e < 5; e++) {
        int[] order = mixOrder(ABC, weights, 41, true, 77, 10, e);
        assertBatches(batches(order, 8), epoch(p), "epoch " + e);
      }
    }
  }

  @Test
  void aSetWhoseQuotaExceedsItsSizeRepeatsItsStreamInsideAnEpoch() {
    double[] weights = {1, 3, 2};
    // Quotas 10, 30, 20: B gives exactly one of its epochs, C (13 samples) one and a half.
    for (int readers : new int[] {0, 3}) {
      try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(60).shuffle(true).seed(-5).shuffleWindow(6)
          .readers(readers))) {
        for (int e = 0; e < 3; e++) {
          int[] order = mixOrder(ABC, weights, 60, true, -5, 6, e);
          assertBatches(batches(order, 8), epoch(p), "readers " + readers + ", epoch " + e);
        }
      }
    }
  }

  @Test
  void anUnshuffledMixTakesTheSetsWhenTheirNextSampleIsDue() {
    double[] weights = {1, 3, 2};
    // Due times of quotas 10, 30, 20, by hand: B's 1/60, C's 1/40, A's and B's 3/60 (A first on the
    // tie), C's 3/40, B's 5/60 and 7/60, C's 5/40, A's and B's 9/60, C's 7/40, B's 11/60.
    int[] dueByHand = {B0, C0, 0, B0 + 1, C0 + 1, B0 + 2, B0 + 3, C0 + 2, 1, B0 + 4, C0 + 3, B0 + 5};
    try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(60).shuffle(false).seed(-5).shuffleWindow(6))) {
      for (int e = 0; e < 3; e++) {
        int[] order = mixOrder(ABC, weights, 60, false, -5, 6, e);
        List<int[]> delivered = epoch(p);
        assertBatches(batches(order, 8), delivered, "epoch " + e);
        if (e == 0) {
          assertArrayEquals(dueByHand, Arrays.copyOf(flat(delivered), 12));
        }
      }
    }
  }

  @Test
  void aShuffledMixOfTwoSetsReadsAllTheirSamplesByDefault() {
    // Weights as the sizes: the default 87 samples split 57 and 30, each set's whole epoch.
    double[] weights = {57, 30};
    List<MixSet> ab = ABC.subList(0, 2);
    try (ShardProvider p = mixOf(weights, s -> s.shuffle(true).seed(9).shuffleWindow(16))) {
      for (int e = 0; e < 3; e++) {
        int[] order = mixOrder(ab, weights, 87, true, 9, 16, e);
        assertBatches(batches(order, 8), epoch(p), "epoch " + e);
        assertArrayEquals(IntStream.concat(IntStream.range(0, 57), IntStream.range(B0, B0 + 30)).toArray(),
            IntStream.of(order).sorted().toArray(), "every sample once");
      }
    }
  }

  @Test
  void equalRemaindersAndEqualDueTimesGoToTheLowerSet() {
    double[] weights = {1, 1, 1};
    // 10 / 3 each: quotas 4, 3, 3 (A's remainder ties B's and C's). Due: A at 1/8, B and C at 1/6
    // (B first), A at 3/8, B and C at 1/2, A at 5/8, B and C at 5/6, A at 7/8.
    int[] byHand = {0, B0, C0, 1, B0 + 1, C0 + 1, 2, B0 + 2, C0 + 2, 3};
    try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(10).batchSize(4))) {
      assertArrayEquals(byHand, flat(epoch(p)), "epoch 0");
      for (int e = 1; e < 3; e++) {
        assertArrayEquals(mixOrder(ABC, weights, 10, false, 0, 1, e), flat(epoch(p)), "epoch " + e);
      }
    }
    assertArrayEquals(byHand, mixOrder(ABC, weights, 10, false, 0, 1, 0));
    try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(10).shuffle(true).seed(31).shuffleWindow(4))) {
      for (int e = 0; e < 6; e++) {
        assertBatches(batches(mixOrder(ABC, weights, 10, true, 31, 4, e), 8), epoch(p), "shuffled, epoch " + e);
      }
    }
  }

  /** Literal values of the mix formula: weights 0.5, 0.3, 0.2, 41 samples, seed 77, window 10. */
  @Test
  void pinnedValuesOfTheOrderOfAMix() {
    double[] weights = {0.5, 0.3, 0.2};
    int[] epoch0 = {7, 24, 1010, 13, 12, 1009, 25, 1028, 2009, 2001};
    int[] epoch1 = {2006, 2011, 1013, 38, 2003, 56, 1014, 37, 49, 1015};
    assertArrayEquals(epoch0, Arrays.copyOf(mixOrder(ABC, weights, 41, true, 77, 10, 0), 10));
    assertArrayEquals(epoch1, Arrays.copyOf(mixOrder(ABC, weights, 41, true, 77, 10, 1), 10));
    try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(41).shuffle(true).seed(77).shuffleWindow(10))) {
      assertArrayEquals(epoch0, Arrays.copyOf(flat(epoch(p)), 10), "epoch 0");
      assertArrayEquals(epoch1, Arrays.copyOf(flat(epoch(p)), 10), "epoch 1");
    }
  }

  // ---- Elastic dealing ----

  /** Global batches {@code p, p + k, …} (below {@code M}) of the recomputed epoch. */
  private static List<int[]> dealt(List<int[]> global, int k, int p) {
    List<int[]> out = new ArrayList<>();
    for (int j = p; j < global.size(); j += k) {
      out.add(global.get(j));
    }
    return out;
  }

  @Test
  void trainerPOfKGetsGlobalBatchesPAndEveryKthAfter() {
    // 57 samples in batches of 5: 12 global batches, the last of 2; three trainers get 4 each.
    for (int t = 0; t < 3; t++) {
      int segment = t;
      try (ShardProvider p = single(s -> s.batchSize(5).shuffle(true).seed(11).shuffleWindow(10).shard(3, segment))) {
        for (int e = 0; e < 2; e++) {
          List<int[]> global = batches(ids(globalOrder(A_FILES, true, 11, 10, e), 0), 5);
          assertEquals(12, global.size());
          assertBatches(dealt(global, 3, segment), epoch(p), "trainer " + segment + " of 3, epoch " + e);
        }
      }
    }
  }

  @Test
  void evenShardsDealWrappedBatchesToTheLastRound() {
    // 12 global batches to 5 trainers: 3 each, global batches 12, 13, 14 being 0, 1, 2 again.
    for (int t = 0; t < 5; t++) {
      int segment = t;
      try (ShardProvider p = single(s -> s.batchSize(5).shuffle(true).seed(11).shuffleWindow(10).shard(5, segment)
          .evenShards(true))) {
        List<int[]> global = batches(ids(globalOrder(A_FILES, true, 11, 10, 0), 0), 5);
        List<int[]> expected = new ArrayList<>();
        for (int j = segment; j < 15; j += 5) {
          expected.add(global.get(j % 12));
        }
        assertBatches(expected, epoch(p), "trainer " + segment + " of 5");
      }
    }
  }

  @Test
  void trainersOfAMixGetItsGlobalBatchesDealt() {
    double[] weights = {0.5, 0.3, 0.2};
    // 41 samples in batches of 8: 6 global batches to 4 trainers, 0 and 4, 1 and 5, 2, 3.
    for (int t = 0; t < 4; t++) {
      int segment = t;
      try (ShardProvider p = mixOf(weights, s -> s.samplesPerEpoch(41).shuffle(true).seed(77).shuffleWindow(10)
          .shard(4, segment))) {
        for (int e = 0; e < 3; e++) {
          List<int[]> global = batches(mixOrder(ABC, weights, 41, true, 77, 10, e), 8);
          assertEquals(6, global.size());
          assertBatches(dealt(global, 4, segment), epoch(p), "trainer " + segment + " of 4, epoch " + e);
        }
      }
    }
  }
}
