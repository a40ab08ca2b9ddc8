package dev.minibatch.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The bucketed order plan against hand-computed epochs. The small data set used throughout:
 *
 * <pre>
 * sample:  0  1  2   3  4  5   6  7  8  9
 * length:  3  9  4  12  7  2  15  8  5  1
 * </pre>
 *
 * With bounds {4, 8, 16} (a sample goes to the smallest bound >= its length) the buckets, in
 * ascending sample index, are: 4 -> [0, 2, 5, 9], 8 -> [4, 7, 8], 16 -> [1, 3, 6].
 */
class BucketOrderPlanTest {
  static final int[] LENGTHS = {3, 9, 4, 12, 7, 2, 15, 8, 5, 1};
  static final int[] BOUNDS = {4, 8, 16};
  static final int C = EpochPlan.CONSTANT_PAD;

  /** One batch as the engine sees it: bucket key, sample indices of every row, padding rows. */
  record B(int key, List<Integer> rows, int pad) {
    @Override
    public String toString() {
      return key + ":" + rows + (pad > 0 ? "+pad" + pad : "");
    }
  }

  static B b(int key, int pad, int... rows) {
    return new B(key, Arrays.stream(rows).boxed().toList(), pad);
  }

  static Sampling sampling(int batchSize, LastBatch policy) {
    return sampling(batchSize, policy, false, 1, 0, false);
  }

  static Sampling sampling(int batchSize, LastBatch policy, boolean shuffle, int parts, int part, boolean even) {
    return new Sampling(batchSize, policy, shuffle, 42L, true, parts, part, even, false, new dev.minibatch.runtime.Settings.Padding(java.util.Map.of(), 0, 0),
        dev.minibatch.runtime.ProviderBuilder.BadSamples.fail(), new dev.minibatch.runtime.Settings.Workers(0, 0));
  }

  static BucketOrderPlan scheduler(int batchSize, LastBatch policy) {
    return new BucketOrderPlan(LENGTHS, BOUNDS, sampling(batchSize, policy));
  }

  /**
   * The batches of {@code plan} from its position on, each marked delivered. Checks on the way
   * that firstPosition is the rows of all earlier batches, and that sampleRows counts the rows
   * before constant padding.
   */
  static List<B> drain(EpochPlan plan) {
    List<B> out = new ArrayList<>();
    int[] idx = new int[plan.batchSize()];
    long position = 0;
    for (int j = 0; j < plan.position(); j++) {
      position += plan.rows(j);
    }
    while (plan.position() < plan.batchCount()) {
      int j = plan.position();
      assertEquals(position, plan.firstPosition(j), "firstPosition of batch " + j);
      int rows = plan.rows(j);
      plan.indices(j, idx);
      int constant = 0;
      for (int r = 0; r < rows; r++) {
        constant += idx[r] == C ? 1 : 0;
      }
      assertEquals(rows - constant, plan.sampleRows(j), "sampleRows of batch " + j);
      out.add(new B(plan.bucketKey(j), Arrays.stream(idx, 0, rows).boxed().toList(), plan.pad(j)));
      position += rows;
      plan.delivered();
    }
    return out;
  }

  static List<B> epoch(OrderPlan s) {
    return drain(s.beginEpoch());
  }

  @Test
  void partialLeavesOneShortBatchPerBucket() {
    // bucket 4: [0,2,5] [9]; bucket 8: [4,7,8]; bucket 16: [1,3,6]; buckets in ascending bound order.
    BucketOrderPlan s = scheduler(3, LastBatch.PARTIAL);
    EpochPlan plan = s.beginEpoch();
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(4, 0, 9), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), drain(plan));
    // Positions count the rows before: 0, 3, then 3 + 1 = 4, then 4 + 3 = 7.
    assertEquals(0, plan.firstPosition(0));
    assertEquals(3, plan.firstPosition(1));
    assertEquals(4, plan.firstPosition(2));
    assertEquals(7, plan.firstPosition(3));
    assertArrayEquals(new int[] {4, 4, 8, 16}, new int[] {plan.bucketKey(0), plan.bucketKey(1), plan.bucketKey(2),
        plan.bucketKey(3)});
    assertEquals("epoch 0: 4=[0, 2, 5] 4=[9] 8=[4, 7, 8] 16=[1, 3, 6]", plan.toString());
    assertArrayEquals(BOUNDS, s.bounds());
    // No carry, no shuffle: every epoch is the same.
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(4, 0, 9), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
  }

  @Test
  void partialWithBatchSizeTwo() {
    // bucket 4: [0,2] [5,9]; bucket 8: [4,7] [8]; bucket 16: [1,3] [6].
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(8, 0, 8), b(16, 0, 1, 3), b(16, 0, 6)),
        epoch(scheduler(2, LastBatch.PARTIAL)));
  }

  @Test
  void discardDropsEachBucketsLeftovers() {
    // bucket 4 loses 9 (4 = 3 + 1); buckets 8 and 16 fill exactly one batch of 3.
    BucketOrderPlan s = scheduler(3, LastBatch.DISCARD);
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    // Batch size 2: bucket 8 loses 8, bucket 16 loses 6.
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(16, 0, 1, 3)),
        epoch(scheduler(2, LastBatch.DISCARD)));
  }

  @Test
  void padWrapPadsFromTheBucketsOwnStart() {
    // bucket 4: [9] + the bucket's first two samples 0, 2 -> [9,0,2], pad 2.
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(4, 2, 9, 0, 2), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)),
        epoch(scheduler(3, LastBatch.PAD_WRAP)));
    // Batch size 2: bucket 8 [8] + 4; bucket 16 [6] + 1.
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(8, 1, 8, 4), b(16, 0, 1, 3), b(16, 1, 6, 1)),
        epoch(scheduler(2, LastBatch.PAD_WRAP)));
  }

  @Test
  void padWrapTilesABucketSmallerThanThePadding() {
    // Bounds {1, 4, 8, 16}: bucket 1 holds only sample 9 (length 1), so its batch is [9, 9, 9], pad 2.
    BucketOrderPlan s = new BucketOrderPlan(LENGTHS, new int[] {1, 4, 8, 16}, sampling(3, LastBatch.PAD_WRAP));
    assertEquals(List.of(b(1, 2, 9, 9, 9), b(4, 0, 0, 2, 5), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
  }

  @Test
  void padConstantFillsEachBucketsLastBatch() {
    BucketOrderPlan s = scheduler(2, LastBatch.PAD_CONSTANT);
    // bucket 8: [8, C]; bucket 16: [6, C]; drain checks sampleRows = 1 for both.
    List<B> expected = List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(8, 1, 8, C), b(16, 0, 1, 3),
        b(16, 1, 6, C));
    EpochPlan plan = s.beginEpoch();
    assertEquals(expected, drain(plan));
    assertEquals(1, plan.sampleRows(3));
    assertEquals(1, plan.sampleRows(5));
    assertEquals(2, plan.sampleRows(4));
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(4, 2, 9, C, C), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)),
        epoch(scheduler(3, LastBatch.PAD_CONSTANT)));
  }

  @Test
  void rollOverCarriesPerBucketIntoTheSameBucketsNextEpoch() {
    BucketOrderPlan s = scheduler(2, LastBatch.ROLL_OVER);
    // Epoch 0: bucket 4 fills two batches; bucket 8 carries 8; bucket 16 carries 6.
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(16, 0, 1, 3)), epoch(s));
    // Between epochs the carries are in the state as [bucket, count, samples...] groups.
    assertArrayEquals(new int[] {1, 1, 8, 2, 1, 6}, s.saveState().carried());
    // Epoch 1: bucket 8 is [8] + [4,7,8] -> [8,4] [7,8]; bucket 16 is [6] + [1,3,6] -> [6,1] [3,6]; no carry.
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 8, 4), b(8, 0, 7, 8), b(16, 0, 6, 1),
        b(16, 0, 3, 6)), epoch(s));
    assertArrayEquals(new int[0], s.saveState().carried());
    // Epoch 2 starts over as epoch 0.
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(16, 0, 1, 3)), epoch(s));
  }

  @Test
  void rollOverWithBatchSizeThree() {
    BucketOrderPlan s = scheduler(3, LastBatch.ROLL_OVER);
    // Epoch 0: bucket 4 [0,2,5], carries 9.
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    // Epoch 1: bucket 4 is [9] + [0,2,5,9] = 5 samples -> [9,0,2], carries [5,9].
    assertEquals(List.of(b(4, 0, 9, 0, 2), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    assertArrayEquals(new int[] {0, 2, 5, 9}, s.saveState().carried());
    // Epoch 2: bucket 4 is [5,9] + [0,2,5,9] = 6 samples -> [5,9,0] [2,5,9], nothing carried.
    assertEquals(List.of(b(4, 0, 5, 9, 0), b(4, 0, 2, 5, 9), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
  }

  @Test
  void resetForgetsTheCarries() {
    BucketOrderPlan s = scheduler(2, LastBatch.ROLL_OVER);
    epoch(s);
    s.reset();
    assertArrayEquals(new int[0], s.saveState().carried());
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(16, 0, 1, 3)), epoch(s));
  }

  @Test
  void padContinuePadsWithTheBucketsNextEpochWhichThenSkipsThem() {
    BucketOrderPlan s = scheduler(3, LastBatch.PAD_CONTINUE);
    // Epoch 0: bucket 4 [0,2,5] then [9] + next epoch's first two of bucket 4 (0, 2), which epoch 1 skips.
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(4, 2, 9, 0, 2), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    assertArrayEquals(new int[] {0, 2, 0, 2}, s.saveState().carried());
    // Epoch 1: bucket 4 is [5,9] (0, 2 were delivered), one batch padded with epoch 2's first, 0.
    assertEquals(List.of(b(4, 1, 5, 9, 0), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    assertArrayEquals(new int[] {0, 1, 0}, s.saveState().carried());
    // Epoch 2: bucket 4 is [2,5,9], exactly a batch: nothing carried, and epoch 3 is epoch 0 again.
    assertEquals(List.of(b(4, 0, 2, 5, 9), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    assertArrayEquals(new int[0], s.saveState().carried());
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(4, 2, 9, 0, 2), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
  }

  @Test
  void padContinueTilesABucketSmallerThanThePaddingAndTheNextEpochSkipsAllOfIt() {
    BucketOrderPlan s = new BucketOrderPlan(LENGTHS, new int[] {1, 4, 8, 16}, sampling(3, LastBatch.PAD_CONTINUE));
    // Bucket 1 holds only 9: [9] + epoch 1's bucket 1 ([9]) tiled -> [9,9,9]; epoch 1 skips its only sample.
    assertEquals(List.of(b(1, 2, 9, 9, 9), b(4, 0, 0, 2, 5), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    assertEquals(List.of(b(4, 0, 0, 2, 5), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
    assertEquals(List.of(b(1, 2, 9, 9, 9), b(4, 0, 0, 2, 5), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
  }

  @Test
  void padContinueWrapsWhenTheBucketIsEmptyInTheNextEpochsPart() {
    // Bounds {4, 8, 14, 16}: bucket 16 holds only sample 6. With shuffle and 2 parts, sample 6 is
    // in part 0 in some epochs only. Where it is in part 0 in epoch e, its batch is [6, 6], pad 1:
    // padded from epoch e + 1's bucket (then carried, and skipped there) if 6 is in part 0 again,
    // else wrapped from epoch e's own bucket, and nothing is carried.
    int[] bounds = {4, 8, 14, 16};
    Sampling sampling = sampling(2, LastBatch.PAD_CONTINUE, true, 2, 0, false);
    BucketOrderPlan s = new BucketOrderPlan(LENGTHS, bounds, sampling);
    ShardOrder parts = new ShardOrder(LENGTHS.length, sampling);
    int wrapped = 0;
    int continued = 0;
    boolean skipNext = false;
    for (int e = 0; e < 30; e++) {
      boolean here = Arrays.stream(parts.order(42, e, false)).anyMatch(i -> i == 6);
      boolean next = Arrays.stream(parts.order(42, e + 1, false)).anyMatch(i -> i == 6);
      List<B> sixteen = epoch(s).stream().filter(x -> x.key() == 16).toList();
      int[] carried = s.saveState().carried();
      if (here && !skipNext) {
        assertEquals(List.of(b(16, 1, 6, 6)), sixteen, "epoch " + e);
        boolean carries = Arrays.equals(Arrays.copyOfRange(carried, Math.max(0, carried.length - 3), carried.length),
            new int[] {3, 1, 6});
        assertEquals(next, carries, "epoch " + e + ": carried " + Arrays.toString(carried));
        wrapped += next ? 0 : 1;
        continued += next ? 1 : 0;
        skipNext = next;
      } else {
        // Not in this part, or already delivered as the last epoch's padding.
        assertEquals(List.of(), sixteen, "epoch " + e);
        skipNext = false;
      }
    }
    assertTrue(wrapped > 0 && continued > 0, "both cases seen: wrapped " + wrapped + ", continued " + continued);
  }

  @Test
  void batchSizeZeroMakesEachBucketOneBatch() {
    BucketOrderPlan s = scheduler(0, LastBatch.PAD_WRAP);
    assertEquals(10, s.batchSize());
    assertEquals(List.of(b(4, 0, 0, 2, 5, 9), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(s));
  }

  @Test
  void aSampleLongerThanTheLargestBoundIsAnErrorNamingIt() {
    int[] lengths = LENGTHS.clone();
    lengths[6] = 17;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new BucketOrderPlan(lengths, BOUNDS, sampling(3, LastBatch.PARTIAL)));
    assertTrue(e.getMessage().startsWith("sample 6 has length 17, longer than the largest bucket bound 16"),
        e.getMessage());
  }

  @Test
  void badBoundsAreRejected() {
    assertThrows(IllegalArgumentException.class,
        () -> new BucketOrderPlan(LENGTHS, new int[] {4, 4, 16}, sampling(3, LastBatch.PARTIAL)));
    assertThrows(IllegalArgumentException.class,
        () -> new BucketOrderPlan(new int[0], BOUNDS, sampling(3, LastBatch.PARTIAL)));
  }

  // ---- shuffle -------------------------------------------------------------------------------

  /** 300 samples with lengths 1..40, skewed to short ones. */
  static int[] manyLengths() {
    SplittableRandom r = new SplittableRandom(7);
    int[] l = new int[300];
    for (int i = 0; i < l.length; i++) {
      l[i] = 1 + (int) (39 * Math.pow(r.nextDouble(), 2));
    }
    return l;
  }

  static final int[] MANY_BOUNDS = {5, 10, 20, 40};

  static List<List<B>> epochs(OrderPlan s, int n) {
    List<List<B>> out = new ArrayList<>();
    for (int e = 0; e < n; e++) {
      out.add(epoch(s));
    }
    return out;
  }

  @Test
  void shuffleIsAFunctionOfSeedAndEpoch() {
    int[] lengths = manyLengths();
    Sampling sampling = sampling(8, LastBatch.PARTIAL, true, 1, 0, false);
    List<List<B>> a = epochs(new BucketOrderPlan(lengths, MANY_BOUNDS, sampling), 3);
    List<List<B>> b = epochs(new BucketOrderPlan(lengths, MANY_BOUNDS, sampling), 3);
    assertEquals(a, b);
    assertNotEquals(a.get(0), a.get(1));
    assertNotEquals(a.get(1), a.get(2));
    // Another seed, another order.
    Sampling other = new Sampling(8, LastBatch.PARTIAL, true, 43L, true, 1, 0, false, false, new dev.minibatch.runtime.Settings.Padding(java.util.Map.of(), 0, 0),
        dev.minibatch.runtime.ProviderBuilder.BadSamples.fail(), new dev.minibatch.runtime.Settings.Workers(0, 0));
    assertNotEquals(a.get(0), epoch(new BucketOrderPlan(lengths, MANY_BOUNDS, other)));
  }

  @Test
  void shuffledEpochsVisitEverySampleOnceInBatchesOfOneBucket() {
    int[] lengths = manyLengths();
    BucketOrderPlan s = new BucketOrderPlan(lengths, MANY_BOUNDS, sampling(8, LastBatch.PARTIAL, true, 1, 0, false));
    boolean keysInterleave = false;
    for (List<B> epoch : epochs(s, 3)) {
      int[] seen = new int[lengths.length];
      for (int j = 0; j < epoch.size(); j++) {
        B batch = epoch.get(j);
        int lower = lowerBound(batch.key());
        for (int i : batch.rows()) {
          seen[i]++;
          assertTrue(lengths[i] <= batch.key() && lengths[i] > lower,
              "sample " + i + " of length " + lengths[i] + " in the batch of key " + batch.key());
        }
        if (j > 0 && epoch.get(j - 1).key() > batch.key()) {
          keysInterleave = true;
        }
      }
      int[] once = new int[lengths.length];
      Arrays.fill(once, 1);
      assertArrayEquals(once, seen);
    }
    // The batches of all buckets are shuffled together, not bucket after bucket.
    assertTrue(keysInterleave);
  }

  @Test
  void shuffledBucketsHoldThePartsPermutationRestrictedToTheBucket() {
    int[] lengths = manyLengths();
    Sampling sampling = sampling(8, LastBatch.PARTIAL, true, 1, 0, false);
    BucketOrderPlan s = new BucketOrderPlan(lengths, MANY_BOUNDS, sampling);
    // The same seed's unbucketed order (SampleOrderPlan, one batch), cut per bucket by hand.
    SampleOrderPlan whole = new SampleOrderPlan(lengths.length, sampling(0, LastBatch.PARTIAL, true, 1, 0, false));
    for (int e = 0; e < 2; e++) {
      List<B> batches = epoch(s);
      List<B> plain = epoch(whole);
      Map<Integer, List<Integer>> byBucket = new HashMap<>();
      for (int i : plain.get(0).rows()) {
        byBucket.computeIfAbsent(keyOf(lengths[i]), k -> new ArrayList<>()).add(i);
      }
      Set<B> expected = new HashSet<>();
      byBucket.forEach((key, samples) -> {
        for (int from = 0; from < samples.size(); from += 8) {
          expected.add(new B(key, samples.subList(from, Math.min(from + 8, samples.size())), 0));
        }
      });
      assertEquals(expected, new HashSet<>(batches));
      assertEquals(expected.size(), batches.size());
    }
  }

  static int keyOf(int length) {
    for (int bound : MANY_BOUNDS) {
      if (length <= bound) {
        return bound;
      }
    }
    throw new AssertionError(length);
  }

  static int lowerBound(int key) {
    int lower = 0;
    for (int bound : MANY_BOUNDS) {
      if (bound == key) {
        return lower;
      }
      lower = bound;
    }
    throw new AssertionError(key);
  }

  // ---- shards --------------------------------------------------------------------------------

  @Test
  void shardsAreDisjointAndCovering() {
    int[] lengths = manyLengths();
    for (boolean shuffle : new boolean[] {false, true}) {
      for (int epoch = 0; epoch < 2; epoch++) {
        int[] seen = new int[lengths.length];
        for (int p = 0; p < 3; p++) {
          BucketOrderPlan s = new BucketOrderPlan(lengths, MANY_BOUNDS, sampling(8, LastBatch.PARTIAL, shuffle, 3, p,
              false));
          List<List<B>> epochs = epochs(s, epoch + 1);
          for (B batch : epochs.get(epoch)) {
            for (int i : batch.rows()) {
              seen[i]++;
            }
          }
        }
        int[] once = new int[lengths.length];
        Arrays.fill(once, 1);
        assertArrayEquals(once, seen, "shuffle " + shuffle + ", epoch " + epoch);
      }
    }
  }

  @Test
  void unshuffledShardsTakeContiguousBlocksBeforeBucketing() {
    // Part 0 of 2 holds samples 0..4 (lengths 3,9,4,12,7): bucket 4 [0,2], bucket 8 [4], bucket 16 [1,3].
    BucketOrderPlan s = new BucketOrderPlan(LENGTHS, BOUNDS, sampling(2, LastBatch.PARTIAL, false, 2, 0, false));
    assertEquals(5, s.shardSize());
    assertEquals(List.of(b(4, 0, 0, 2), b(8, 0, 4), b(16, 0, 1, 3)), epoch(s));
    // Part 1 holds 5..9 (lengths 2,15,8,5,1): bucket 4 [5,9], bucket 8 [7,8], bucket 16 [6].
    BucketOrderPlan t = new BucketOrderPlan(LENGTHS, BOUNDS, sampling(2, LastBatch.PARTIAL, false, 2, 1, false));
    assertEquals(List.of(b(4, 0, 5, 9), b(8, 0, 7, 8), b(16, 0, 6)), epoch(t));
  }

  // ---- resume --------------------------------------------------------------------------------

  /** Runs {@code epochs} epochs, saving the state after {@code k} batches; returns the batches after it. */
  static List<B> after(BucketOrderPlan s, int epochs, int k, IterationState @Nullable [] saved) {
    List<B> out = new ArrayList<>();
    int delivered = 0;
    for (int e = 0; e < epochs; e++) {
      EpochPlan plan = s.beginEpoch();
      while (plan.position() < plan.batchCount()) {
        if (delivered == k && saved != null) {
          saved[0] = s.saveState();
        }
        List<B> one = new ArrayList<>();
        int j = plan.position();
        int[] idx = new int[plan.batchSize()];
        plan.indices(j, idx);
        one.add(new B(plan.bucketKey(j), Arrays.stream(idx, 0, plan.rows(j)).boxed().toList(), plan.pad(j)));
        plan.delivered();
        if (delivered >= k) {
          out.addAll(one);
        }
        delivered++;
      }
      if (delivered == k && saved != null) {
        saved[0] = s.saveState(); // at an epoch's end: the state of the next epoch, with its carries
      }
    }
    return out;
  }

  @Test
  void restoredSchedulersDeliverTheRemainingBatchesOfTheUninterruptedRun() {
    int[] lengths = manyLengths();
    for (LastBatch policy : LastBatch.values()) {
      for (boolean shuffle : new boolean[] {false, true}) {
        for (int parts : new int[] {1, 2}) {
          Sampling sampling = sampling(7, policy, shuffle, parts, parts - 1, false);
          List<B> all = after(new BucketOrderPlan(lengths, MANY_BOUNDS, sampling), 4, 0, null);
          int epochs = 4;
          for (int k : new int[] {1, 5, all.size() / 4, all.size() / 4 + 1, all.size() / 2 - 1, all.size() - 2}) {
            IterationState[] saved = new IterationState[1];
            after(new BucketOrderPlan(lengths, MANY_BOUNDS, sampling), epochs, k, saved);
            String where = policy + ", shuffle " + shuffle + ", parts " + parts + ", after " + k + " batches";
            assertTrue(saved[0] != null, where);
            BucketOrderPlan fresh = new BucketOrderPlan(lengths, MANY_BOUNDS, sampling);
            fresh.restoreState(IterationState.decode(saved[0].encode()));
            List<B> rest = new ArrayList<>();
            while (rest.size() < all.size() - k) {
              rest.addAll(drain(fresh.beginEpoch()));
            }
            assertEquals(all.subList(k, all.size()), rest.subList(0, all.size() - k), where);
          }
        }
      }
    }
  }

  @Test
  void resumeBetweenEpochsKeepsARollOverCarry() {
    BucketOrderPlan s = scheduler(2, LastBatch.ROLL_OVER);
    epoch(s);
    IterationState state = s.saveState();
    assertEquals(1, state.epoch());
    assertEquals(0, state.position());
    BucketOrderPlan fresh = scheduler(2, LastBatch.ROLL_OVER);
    fresh.restoreState(state);
    // Epoch 1 of rollOverCarriesPerBucketIntoTheSameBucketsNextEpoch, carries 8 and 6 in front.
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 8, 4), b(8, 0, 7, 8), b(16, 0, 6, 1),
        b(16, 0, 3, 6)), epoch(fresh));
  }

  @Test
  void resumeMidEpochAfterACarry() {
    BucketOrderPlan s = scheduler(2, LastBatch.ROLL_OVER);
    epoch(s);
    EpochPlan plan = s.beginEpoch();
    plan.delivered();
    plan.delivered();
    plan.delivered();
    IterationState state = s.saveState();
    // Epoch 1 carried in 8 (bucket 1) and 6 (bucket 2); 3 batches delivered.
    assertEquals(1, state.epoch());
    assertEquals(3, state.position());
    assertArrayEquals(new int[] {1, 1, 8, 2, 1, 6}, state.carried());
    BucketOrderPlan fresh = scheduler(2, LastBatch.ROLL_OVER);
    fresh.restoreState(state);
    assertEquals(List.of(b(8, 0, 7, 8), b(16, 0, 6, 1), b(16, 0, 3, 6)), epoch(fresh));
    assertEquals(List.of(b(4, 0, 0, 2), b(4, 0, 5, 9), b(8, 0, 4, 7), b(16, 0, 1, 3)), epoch(fresh));
  }

  @Test
  void aStateFromOtherBoundsIsRejected() {
    BucketOrderPlan s = scheduler(2, LastBatch.ROLL_OVER);
    epoch(s);
    IterationState state = s.saveState();
    BucketOrderPlan other = new BucketOrderPlan(LENGTHS, new int[] {4, 8, 20}, sampling(2, LastBatch.ROLL_OVER));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> other.restoreState(state));
    assertTrue(e.getMessage().contains("buckets=4/8/16") && e.getMessage().contains("buckets=4/8/20"), e.getMessage());
    // Same bounds, other lengths (sample 0 moves from bucket 4 to bucket 8): rejected as well.
    int[] moved = LENGTHS.clone();
    moved[0] = 6;
    BucketOrderPlan otherData = new BucketOrderPlan(moved, BOUNDS, sampling(2, LastBatch.ROLL_OVER));
    assertThrows(IllegalArgumentException.class, () -> otherData.restoreState(state));
  }

  @Test
  void malformedCarriesAreRejectedWithTheReason() {
    BucketOrderPlan s = scheduler(2, LastBatch.ROLL_OVER);
    String settings = s.fingerprint();
    // Sample 1 (length 9) belongs to bucket 2 (bound 16), not bucket 0.
    IllegalArgumentException wrongBucket = assertThrows(IllegalArgumentException.class,
        () -> s.restoreState(new IterationState(42, 1, 0, new int[] {0, 1, 1}, settings)));
    assertEquals("iteration state: sample 1 is carried in bucket 0 (bound 4) but belongs to bucket 2 (bound 16)",
        wrongBucket.getMessage());
    IllegalArgumentException shortGroup = assertThrows(IllegalArgumentException.class,
        () -> s.restoreState(new IterationState(42, 1, 0, new int[] {1, 2, 8}, settings)));
    assertTrue(shortGroup.getMessage().contains("counts 2 samples, but 1 entries follow"), shortGroup.getMessage());
    IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
        () -> s.restoreState(new IterationState(42, 1, 0, new int[] {1, 2, 4, 7}, settings)));
    assertTrue(tooMany.getMessage().contains("fewer than a batch (2) can be carried"), tooMany.getMessage());
    IllegalArgumentException position = assertThrows(IllegalArgumentException.class,
        () -> s.restoreState(new IterationState(42, 0, 5, new int[0], settings)));
    assertTrue(position.getMessage().contains("epoch 0 has 4 batches"), position.getMessage());
    // PAD_CONTINUE: the carried samples must be the bucket's first ones of that epoch (0, 2), not 2, 0.
    BucketOrderPlan p = scheduler(3, LastBatch.PAD_CONTINUE);
    assertThrows(IllegalArgumentException.class,
        () -> p.restoreState(new IterationState(42, 1, 0, new int[] {0, 2, 2, 0}, p.fingerprint())));
    p.restoreState(new IterationState(42, 1, 0, new int[] {0, 2, 0, 2}, p.fingerprint()));
    assertEquals(List.of(b(4, 1, 5, 9, 0), b(8, 0, 4, 7, 8), b(16, 0, 1, 3, 6)), epoch(p));
  }

  // ---- the bucketed EpochPlan ----------------------------------------------------------------

  @Test
  void bucketedPlansMarkThePaddingOfEveryPaddedBatch() {
    // Two padded batches in one epoch: PAD_WRAP, batch size 2 (bucket 8: [8,4], bucket 16: [6,1]).
    EpochPlan plan = scheduler(2, LastBatch.PAD_WRAP).beginEpoch();
    List<Integer> padded = new ArrayList<>();
    plan.mapSamples((at, sample, padding) -> {
      if (padding) {
        padded.add(sample);
      }
      return sample + 100;
    });
    assertEquals(List.of(4, 1), padded);
    assertEquals(List.of(b(4, 0, 100, 102), b(4, 0, 105, 109), b(8, 0, 104, 107), b(8, 1, 108, 104),
        b(16, 0, 101, 103), b(16, 1, 106, 101)), drain(plan));
  }

  @Test
  void uniformPlansHaveNoBucketKey() {
    EpochPlan plan = new SampleOrderPlan(10, sampling(3, LastBatch.PARTIAL)).beginEpoch();
    assertEquals(EpochPlan.NO_BUCKET, plan.bucketKey(0));
    assertEquals(9, plan.firstPosition(3));
    assertEquals(List.of(b(-1, 0, 0, 1, 2), b(-1, 0, 3, 4, 5), b(-1, 0, 6, 7, 8), b(-1, 0, 9)), drain(plan));
  }
}
