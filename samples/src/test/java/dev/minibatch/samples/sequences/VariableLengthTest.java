package dev.minibatch.samples.sequences;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.shape.Shape;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.contract.Failures;
import dev.minibatch.runtime.interop.ProviderIterators;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Padding, masks and lengths of generated providers with variable-length members, against batches
 * worked out by hand. Five tagging samples of lengths 3, 1, 4, 2, 5 in batches of 2: sample {@code
 * i} holds tokens {@code 10i+1 .. 10i+n}, and tags = tokens + 100, padded with -1.
 */
class VariableLengthTest {
  static final int[] LENGTHS = {3, 1, 4, 2, 5};

  static List<Tagged> tagged() {
    List<Tagged> out = new ArrayList<>();
    for (int i = 0; i < LENGTHS.length; i++) {
      out.add(Tagged.of(i, LENGTHS[i]));
    }
    return out;
  }

  /** The batch's arrays as Java arrays: tokens, tags, mask, lengths. */
  record Seen(int[][] tokens, int[][] tags, float[][] mask, int[] lengths, int rows, int pad) {}

  static Seen seen(TaggedBatch b) {
    return new Seen(b.getTokens().toIntMatrix(), b.getTags().toIntMatrix(), b.getTokensMask().toFloatMatrix(),
        b.getTokensLengths().toIntVector(), b.rows(), b.countSamples() == b.rows() ? 0 : b.pad());
  }

  static List<Seen> epoch(TaggedProvider p) {
    List<Seen> out = new ArrayList<>();
    try (BatchIterator<TaggedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        out.add(seen(it.next()));
      }
    }
    return out;
  }

  static void assertBatch(Seen s, int[][] tokens, int[][] tags, float[][] mask, int[] lengths, int pad) {
    assertArrayEquals(tokens, s.tokens(), "tokens");
    assertArrayEquals(tags, s.tags(), "tags");
    assertArrayEquals(mask, s.mask(), "mask");
    assertArrayEquals(lengths, s.lengths(), "lengths");
    assertEquals(pad, s.pad(), "pad");
  }

  static TaggedProvider provider(LastBatch policy) {
    return TaggedProvider.builder().samples(tagged()).batchSize(2).lastBatch(policy).dataPadding(5).labelPadding(7)
        .build();
  }

  // The first two batches are the same under every policy that keeps the order.
  static void assertFirstTwo(List<Seen> e) {
    assertBatch(e.get(0), new int[][] {{1, 2, 3}, {11, 0, 0}}, new int[][] {{101, 102, 103}, {111, -1, -1}},
        new float[][] {{1, 1, 1}, {1, 0, 0}}, new int[] {3, 1}, 0);
    assertBatch(e.get(1), new int[][] {{21, 22, 23, 24}, {31, 32, 0, 0}},
        new int[][] {{121, 122, 123, 124}, {131, 132, -1, -1}}, new float[][] {{1, 1, 1, 1}, {1, 1, 0, 0}},
        new int[] {4, 2}, 0);
  }

  @Test
  void partialPadsEachBatchToItsLongestSample() {
    try (TaggedProvider p = provider(LastBatch.PARTIAL)) {
      List<Seen> e = epoch(p);
      assertEquals(3, e.size());
      assertFirstTwo(e);
      assertBatch(e.get(2), new int[][] {{41, 42, 43, 44, 45}}, new int[][] {{141, 142, 143, 144, 145}},
          new float[][] {{1, 1, 1, 1, 1}}, new int[] {5}, 0);
      assertEquals(1, e.get(2).rows());
    }
  }

  @Test
  void discardDropsTheShortBatch() {
    try (TaggedProvider p = provider(LastBatch.DISCARD)) {
      List<Seen> e = epoch(p);
      assertEquals(2, e.size());
      assertFirstTwo(e);
    }
  }

  @Test
  void padConstantFillsTheRowWithTheConstantAndMasksItOut() {
    try (TaggedProvider p = provider(LastBatch.PAD_CONSTANT)) {
      List<Seen> e = epoch(p);
      assertEquals(3, e.size());
      assertFirstTwo(e);
      // Row 1 is padding: the data constant 5, the label constant 7, mask 0, length 0.
      assertBatch(e.get(2), new int[][] {{41, 42, 43, 44, 45}, {5, 5, 5, 5, 5}},
          new int[][] {{141, 142, 143, 144, 145}, {7, 7, 7, 7, 7}}, new float[][] {{1, 1, 1, 1, 1}, {0, 0, 0, 0, 0}},
          new int[] {5, 0}, 1);
    }
  }

  @Test
  void padWrapRepeatsTheFirstSamplePaddedToTheBatch() {
    try (TaggedProvider p = provider(LastBatch.PAD_WRAP)) {
      List<Seen> e = epoch(p);
      assertEquals(3, e.size());
      assertFirstTwo(e);
      assertBatch(e.get(2), new int[][] {{41, 42, 43, 44, 45}, {1, 2, 3, 0, 0}},
          new int[][] {{141, 142, 143, 144, 145}, {101, 102, 103, -1, -1}},
          new float[][] {{1, 1, 1, 1, 1}, {1, 1, 1, 0, 0}}, new int[] {5, 3}, 1);
    }
  }

  @Test
  void padContinueTakesTheNextEpochsFirstSamples() {
    try (TaggedProvider p = provider(LastBatch.PAD_CONTINUE)) {
      List<Seen> first = epoch(p);
      assertBatch(first.get(2), new int[][] {{41, 42, 43, 44, 45}, {1, 2, 3, 0, 0}},
          new int[][] {{141, 142, 143, 144, 145}, {101, 102, 103, -1, -1}},
          new float[][] {{1, 1, 1, 1, 1}, {1, 1, 1, 0, 0}}, new int[] {5, 3}, 1);
      // Epoch 2 starts after sample 0: [1, 2] [3, 4].
      List<Seen> second = epoch(p);
      assertEquals(2, second.size());
      assertBatch(second.get(0), new int[][] {{11, 0, 0, 0}, {21, 22, 23, 24}},
          new int[][] {{111, -1, -1, -1}, {121, 122, 123, 124}}, new float[][] {{1, 0, 0, 0}, {1, 1, 1, 1}},
          new int[] {1, 4}, 0);
      assertBatch(second.get(1), new int[][] {{31, 32, 0, 0, 0}, {41, 42, 43, 44, 45}},
          new int[][] {{131, 132, -1, -1, -1}, {141, 142, 143, 144, 145}},
          new float[][] {{1, 1, 0, 0, 0}, {1, 1, 1, 1, 1}}, new int[] {2, 5}, 0);
    }
  }

  @Test
  void rollOverCarriesTheLastSampleIntoTheNextEpoch() {
    try (TaggedProvider p = provider(LastBatch.ROLL_OVER)) {
      List<Seen> first = epoch(p);
      assertEquals(2, first.size());
      assertFirstTwo(first);
      // Epoch 2 cuts the carried sample 4 and the 5 samples: [4, 0] [1, 2] [3, 4], nothing carried on.
      List<Seen> second = epoch(p);
      assertEquals(3, second.size());
      assertBatch(second.get(0), new int[][] {{41, 42, 43, 44, 45}, {1, 2, 3, 0, 0}},
          new int[][] {{141, 142, 143, 144, 145}, {101, 102, 103, -1, -1}},
          new float[][] {{1, 1, 1, 1, 1}, {1, 1, 1, 0, 0}}, new int[] {5, 3}, 0);
      assertBatch(second.get(1), new int[][] {{11, 0, 0, 0}, {21, 22, 23, 24}},
          new int[][] {{111, -1, -1, -1}, {121, 122, 123, 124}}, new float[][] {{1, 0, 0, 0}, {1, 1, 1, 1}},
          new int[] {1, 4}, 0);
      assertBatch(second.get(2), new int[][] {{31, 32, 0, 0, 0}, {41, 42, 43, 44, 45}},
          new int[][] {{131, 132, -1, -1, -1}, {141, 142, 143, 144, 145}},
          new float[][] {{1, 1, 0, 0, 0}, {1, 1, 1, 1, 1}}, new int[] {2, 5}, 0);
    }
  }

  @Test
  void fixedLengthPadsEveryBatchToTheLongestSample() {
    try (TaggedProvider p = TaggedProvider.builder().samples(tagged()).batchSize(2).fixedLength(true).build()) {
      assertEquals(Shape.of(2, 5), p.provideData().get(0).shape());
      List<Seen> e = epoch(p);
      assertArrayEquals(new int[][] {{1, 2, 3, 0, 0}, {11, 0, 0, 0, 0}}, e.get(0).tokens());
      assertArrayEquals(new float[][] {{1, 1, 1, 0, 0}, {1, 0, 0, 0, 0}}, e.get(0).mask());
      assertArrayEquals(new int[][] {{41, 42, 43, 44, 45}}, e.get(2).tokens());
    }
  }

  @Test
  void provideDataReportsTheVariableAxisAndABatchItsActualShape() {
    try (TaggedProvider p = provider(LastBatch.PARTIAL)) {
      DataDesc tokens = p.provideData().get(0);
      assertEquals(Shape.of(2, Shape.VARIABLE), tokens.shape());
      assertEquals("NT", tokens.layout());
      assertEquals(0, tokens.maxLength());
      try (BatchIterator<TaggedBatch> it = p.iterator()) {
        TaggedBatch b = it.next();
        assertArrayEquals(new long[] {2, 3}, b.getTokens().shape());
        assertEquals(b.getTokensMask(), b.getTagsMask());
        assertEquals(b.getTokensMask(), b.mask("tags"));
        assertEquals(-1, b.bucketKey());
      }
    }
  }

  @Test
  void thePaddingRatioOfAnEpochIsPaddedStepsOverRealSteps() {
    try (TaggedProvider p = provider(LastBatch.PARTIAL)) {
      long real = 0;
      long padded = 0;
      try (BatchIterator<TaggedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          TaggedBatch b = it.next();
          real += b.realSteps();
          padded += b.paddedSteps();
        }
        // Hand count: [3,1] padded to 3 -> 2; [4,2] to 4 -> 2; [5] -> 0; real 15.
        assertEquals(15, real);
        assertEquals(4, padded);
        assertEquals(4.0 / 15, dev.minibatch.runtime.pipeline.PipelineStats.of(it).padding().ratio(), 1e-12);
      }
    }
  }

  @Test
  void readerThreadsWriteTheSameBatches() {
    List<Tagged> many = new ArrayList<>();
    java.util.Random r = new java.util.Random(3);
    for (int i = 0; i < 200; i++) {
      many.add(Tagged.of(i, 1 + r.nextInt(40)));
    }
    List<List<Seen>> runs = new ArrayList<>();
    for (int readers : new int[] {0, 1, 3}) {
      try (TaggedProvider p = TaggedProvider.builder().samples(many).batchSize(16).shuffle(true).seed(9)
          .lastBatch(LastBatch.PAD_WRAP).readers(readers).build()) {
        runs.add(epoch(p));
      }
    }
    for (List<Seen> run : runs.subList(1, runs.size())) {
      assertEquals(runs.get(0).size(), run.size());
      for (int j = 0; j < run.size(); j++) {
        assertArrayEquals(runs.get(0).get(j).tokens(), run.get(j).tokens());
        assertArrayEquals(runs.get(0).get(j).mask(), run.get(j).mask());
        assertArrayEquals(runs.get(0).get(j).lengths(), run.get(j).lengths());
      }
    }
  }

  // Buckets {2, 4, 5} over lengths 3, 1, 4, 2, 5: bucket 2 holds samples 1 and 3, bucket 4 samples 0 and 2,
  // bucket 5 sample 4. Without shuffle the buckets come in ascending order, each padded to its bound.
  @Test
  void bucketsPadEachBatchToItsBucketsBoundAndReportIt() {
    try (TaggedProvider p = TaggedProvider.builder().samples(tagged()).batchSize(2).buckets(2, 4, 5).build()) {
      List<Integer> keys = new ArrayList<>();
      List<Seen> e = new ArrayList<>();
      long real = 0;
      long padded = 0;
      try (BatchIterator<TaggedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          TaggedBatch b = it.next();
          keys.add(b.bucketKey());
          e.add(seen(b));
        }
        real = dev.minibatch.runtime.pipeline.PipelineStats.of(it).padding().realSteps();
        padded = dev.minibatch.runtime.pipeline.PipelineStats.of(it).padding().paddedSteps();
      }
      assertEquals(List.of(2, 4, 5), keys);
      assertBatch(e.get(0), new int[][] {{11, 0}, {31, 32}}, new int[][] {{111, -1}, {131, 132}},
          new float[][] {{1, 0}, {1, 1}}, new int[] {1, 2}, 0);
      assertBatch(e.get(1), new int[][] {{1, 2, 3, 0}, {21, 22, 23, 24}}, new int[][] {{101, 102, 103, -1},
          {121, 122, 123, 124}}, new float[][] {{1, 1, 1, 0}, {1, 1, 1, 1}}, new int[] {3, 4}, 0);
      assertBatch(e.get(2), new int[][] {{41, 42, 43, 44, 45}}, new int[][] {{141, 142, 143, 144, 145}},
          new float[][] {{1, 1, 1, 1, 1}}, new int[] {5}, 0);
      // Padding 2 steps of 15 with buckets, against 4 of 15 without (thePaddingRatio... above).
      assertEquals(15, real);
      assertEquals(2, padded);
    }
  }

  @Test
  void bucketsApplyTheLastBatchPolicyPerBucket() {
    try (TaggedProvider p = TaggedProvider.builder().samples(tagged()).batchSize(2).buckets(2, 4, 5)
        .lastBatch(LastBatch.PAD_CONSTANT).dataPadding(5).labelPadding(7).build()) {
      List<Seen> e = epoch(p);
      assertEquals(3, e.size());
      // Bucket 5's batch: sample 4, then a constant row.
      assertBatch(e.get(2), new int[][] {{41, 42, 43, 44, 45}, {5, 5, 5, 5, 5}},
          new int[][] {{141, 142, 143, 144, 145}, {7, 7, 7, 7, 7}}, new float[][] {{1, 1, 1, 1, 1}, {0, 0, 0, 0, 0}},
          new int[] {5, 0}, 1);
    }
    try (TaggedProvider p = TaggedProvider.builder().samples(tagged()).batchSize(2).buckets(2, 4, 5)
        .lastBatch(LastBatch.DISCARD).build()) {
      assertEquals(2, epoch(p).size());
    }
  }

  @Test
  void aBucketedOrderIsTheSameForAnyNumberOfReadersAndAcrossAResume() {
    List<Tagged> many = new ArrayList<>();
    java.util.Random r = new java.util.Random(5);
    for (int i = 0; i < 300; i++) {
      many.add(Tagged.of(i, 1 + (int) Math.min(63, Math.abs(r.nextGaussian()) * 12)));
    }
    java.util.function.IntFunction<TaggedProvider> build = readers -> TaggedProvider.builder().samples(many)
        .batchSize(8).shuffle(true).seed(11).lastBatch(LastBatch.ROLL_OVER).buckets(8, 16, 32, 64).readers(readers)
        .build();
    List<List<Seen>> epochs = new ArrayList<>();
    try (TaggedProvider p = build.apply(0)) {
      epochs.add(epoch(p));
      epochs.add(epoch(p));
    }
    try (TaggedProvider p = build.apply(3)) {
      assertSameBatches(epochs.get(0), epoch(p));
      assertSameBatches(epochs.get(1), epoch(p));
    }
    // Stop after 5 batches of epoch 2, resume in a new provider: the rest of epoch 2 is the same.
    dev.minibatch.runtime.IterationState state;
    try (TaggedProvider p = build.apply(0)) {
      epoch(p);
      try (BatchIterator<TaggedBatch> it = p.iterator()) {
        for (int j = 0; j < 5; j++) {
          it.next();
        }
        state = p.saveState();
      }
    }
    try (TaggedProvider p = build.apply(2)) {
      p.restoreState(dev.minibatch.runtime.IterationState.decode(state.encode()));
      assertSameBatches(epochs.get(1).subList(5, epochs.get(1).size()), epoch(p));
    }
  }

  private static void assertSameBatches(List<Seen> want, List<Seen> got) {
    assertEquals(want.size(), got.size());
    for (int j = 0; j < want.size(); j++) {
      assertArrayEquals(want.get(j).tokens(), got.get(j).tokens(), "batch " + j);
      assertArrayEquals(want.get(j).mask(), got.get(j).mask(), "batch " + j);
      assertArrayEquals(want.get(j).lengths(), got.get(j).lengths(), "batch " + j);
    }
  }

  @Test
  void membersThatShareALengthAreCheckedPerSample() {
    List<Tagged> bad = new ArrayList<>(tagged());
    bad.set(1, new Tagged(new int[] {1, 2, 3}, new int[] {4, 5}));
    try (TaggedProvider p = TaggedProvider.builder().samples(bad).batchSize(2).build();
        BatchIterator<TaggedBatch> it = p.iterator()) {
      RuntimeException e = assertThrows(RuntimeException.class, it::next);
      assertTrue(Failures.chain(e).contains("field 'tags' of sample 1 has length 2 but is sameLengthAs 'tokens', which has "
          + "length 3"), Failures.chain(e));
    }
  }

  /**
   * The counterpart of the contract's failing-sample test (which this fixture cannot take: its
   * samples' lengths are read when the provider is built): on reader threads, a sample whose shared
   * length is wrong fails the epoch with the stage and the sample, and every reader ends.
   */
  @Test
  void onReaderThreadsABadSampleNamesStageAndSampleAndTheReadersEnd() throws InterruptedException {
    List<Tagged> bad = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      bad.add(Tagged.of(i, 1 + i % 5));
    }
    bad.set(27, new Tagged(new int[] {1, 2, 3}, new int[] {4, 5}));
    java.util.Set<Thread> before = dev.minibatch.runtime.contract.EngineThreads.live();
    try (TaggedProvider p = TaggedProvider.builder().samples(bad).batchSize(4).readers(2).build();
        BatchIterator<TaggedBatch> it = p.iterator()) {
      dev.minibatch.runtime.pipeline.StageFailedException e = assertThrows(
          dev.minibatch.runtime.pipeline.StageFailedException.class, () -> {
            while (it.hasNext()) {
              it.next();
            }
          });
      assertEquals("sample-reader", e.stage());
      assertEquals(27, e.sampleIndex());
      assertTrue(Failures.chain(e).contains("field 'tags' of sample 27 has length 2 but is sameLengthAs 'tokens', which has "
          + "length 3"), Failures.chain(e));
    }
    // Joined, not slept on: the engine's threads started by this test must end.
    java.util.Set<Thread> alive = dev.minibatch.runtime.contract.EngineThreads.awaitOnly(before, 10);
    assertTrue(alive.isEmpty(), "still alive after 10 s: " + dev.minibatch.runtime.contract.EngineThreads.describe(alive));
  }

  @Test
  void aBoundedAxisTruncatesFromTheStartAndPadsTheRest() {
    List<Channels> samples = List.of(
        new Channels(new short[][] {{1, 2, 3, 4}, {5, 6, 7, 8}}, 0),
        new Channels(new short[][] {{1, 2}, {3, 4}}, 1));
    try (ChannelsProvider p = ChannelsProvider.builder().samples(samples).batchSize(2).build()) {
      DataDesc d = p.provideData().get(0);
      assertEquals(Shape.of(2, 2, Shape.VARIABLE), d.shape());
      assertEquals(3, d.maxLength());
      assertEquals("NCT", d.layout());
      try (BatchIterator<ChannelsBatch> it = p.iterator()) {
        ChannelsBatch b = it.next();
        // Sample 0 keeps its last 3 steps; sample 1 is padded with 0.5.
        INDArray want = Nd4j.create(new float[] {2, 3, 4, 6, 7, 8, 1, 2, 0.5f, 3, 4, 0.5f}, new long[] {2, 2, 3});
        assertEquals(want, b.getSignal());
        assertArrayEquals(new int[] {3, 2}, b.getSignalLengths().toIntVector());
        assertArrayEquals(new float[][] {{1, 1, 1}, {1, 1, 0}}, b.getSignalMask().toFloatMatrix());
      }
    }
  }

  @Test
  void indarrayMembersArePaddedAndTooLongOnesFailAtBuild() {
    List<Frames> ok = List.of(new Frames(Nd4j.create(new float[][] {{1, 2}, {3, 4}}), 0),
        new Frames(Nd4j.create(new float[][] {{5, 6}}), 1));
    try (FramesProvider p = FramesProvider.builder().samples(ok).batchSize(2).build();
        BatchIterator<FramesBatch> it = p.iterator()) {
      FramesBatch b = it.next();
      assertEquals(Nd4j.create(new float[] {1, 2, 3, 4, 5, 6, 9, 9}, new long[] {2, 2, 2}), b.getFrames());
      assertArrayEquals(new float[][] {{1, 1}, {1, 0}}, b.getFramesMask().toFloatMatrix());
    }
    List<Frames> tooLong = List.of(ok.get(0), new Frames(Nd4j.zeros(5, 2), 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FramesProvider.builder().samples(tooLong).batchSize(2).build());
    assertEquals("field 'frames' of sample 1: length 5 exceeds maxLength 4 (tooLong = ERROR); raise maxLength, or "
        + "truncate with tooLong = TRUNCATE_START or TRUNCATE_END", e.getMessage());
  }

  @Test
  void theMultiDataSetAdapterPassesFeatureAndLabelMasks() {
    try (TaggedProvider p = provider(LastBatch.PARTIAL)) {
      MultiDataSetIterator it = ProviderIterators.multiDataSet(p);
      MultiDataSet m = it.next();
      assertArrayEquals(new float[][] {{1, 1, 1}, {1, 0, 0}}, m.getFeaturesMaskArray(0).toFloatMatrix());
      assertArrayEquals(new float[][] {{1, 1, 1}, {1, 0, 0}}, m.getLabelsMaskArray(0).toFloatMatrix());
    }
    try (ChannelsProvider p = ChannelsProvider.builder().samples(List.of(
        new Channels(new short[][] {{1}, {2}}, 0))).batchSize(1).build()) {
      MultiDataSet m = ProviderIterators.multiDataSet(p).next();
      assertArrayEquals(new float[][] {{1}}, m.getFeaturesMaskArray(0).toFloatMatrix());
      assertNull(m.getLabelsMaskArrays(), "the fixed label has no mask");
    }
  }

  @Test
  void aStreamingSourcePadsToTheBoundAndNeedsOne() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TaggedProvider.builder().streaming(tagged()).batchSize(2).build());
    assertEquals("TaggedProvider: a streaming source cannot size the buffers of 'tokens', whose variable axis has no "
        + "maxLength; declare @Provides(maxLength = ...) or build from a List", e.getMessage());
    List<Channels> samples = List.of(new Channels(new short[][] {{1}, {2}}, 0), new Channels(new short[][] {{3, 4},
        {5, 6}}, 1));
    try (ChannelsProvider p = ChannelsProvider.builder().streaming(samples).batchSize(2).build();
        BatchIterator<ChannelsBatch> it = p.iterator()) {
      ChannelsBatch b = it.next();
      assertEquals(Nd4j.create(new float[] {1, 0.5f, 0.5f, 2, 0.5f, 0.5f, 3, 4, 0.5f, 5, 6, 0.5f}, new long[] {2, 2, 3}),
          b.getSignal());
      assertArrayEquals(new int[] {1, 2}, b.getSignalLengths().toIntVector());
    }
    assertThrows(IllegalArgumentException.class,
        () -> ChannelsProvider.builder().streaming(samples).batchSize(2).buckets(1, 3).build());
  }

  @Test
  void theMemoryEstimateCountsTheBoundMasksAndLengths() {
    // Channels: signal 2 x 3 float32 at its bound (24 bytes), its mask 3 floats (12), its length (4), kind (4).
    assertEquals(44, ChannelsProvider.BYTES_PER_SAMPLE);
    // One more step: 2 floats of signal and 1 of mask.
    assertEquals(12, ChannelsProvider.BYTES_PER_SAMPLE_STEP);
    assertEquals(0, ChannelsProvider.BYTES_PER_BATCH, "no default batch size declared");
    // Tagged is unbounded: only the length is fixed; a step costs a token, a tag and a mask value.
    assertEquals(4, TaggedProvider.BYTES_PER_SAMPLE);
    assertEquals(12, TaggedProvider.BYTES_PER_SAMPLE_STEP);
  }

}
