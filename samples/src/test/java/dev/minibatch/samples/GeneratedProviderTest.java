package dev.minibatch.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch.SlicedNDArray;
import dev.minibatch.runtime.Device;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.samples.kotlin.SensorDemoKt;
import dev.minibatch.samples.text.CharWindowProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The generated {@code PointProvider} against the same hand-computed expectations as {@code
 * ArrayDataProvider} (n = 10 samples, batch 3). Sample i holds xy = (i, 100 + i) and label 1000 +
 * i, so every row says which sample it came from and whether data and label agree.
 */
class GeneratedProviderTest {
  private static final int N = 10;

  static List<Point> points(int n) {
    return IntStream.range(0, n).mapToObj(i -> new Point(new float[] {i, 100 + i}, 1000 + i)).toList();
  }

  static PointProvider provider(Consumer<PointProvider.Builder> settings) {
    return PointProvider.create(b -> settings.accept(b.samples(points(N))));
  }

  /** The sample ids of each batch of one epoch, checking alignment and sampleIndex. */
  static List<List<Integer>> epoch(Iterable<PointBatch> p) {
    List<List<Integer>> out = new ArrayList<>();
    for (PointBatch b : p) {
      INDArray x = b.getXy();
      INDArray y = b.getLabel();
      assertEquals(x, b.get("xy"));
      assertEquals(y, b.get("softmax_label"));
      List<Integer> ids = new ArrayList<>();
      for (int r = 0; r < b.rows(); r++) {
        int id = (int) x.getFloat(r, 0);
        ids.add(id);
        if (b.sampleIndex(r) >= 0) {
          assertEquals(id + 100, (int) x.getFloat(r, 1));
          assertEquals(id + 1000, y.getInt(r));
          assertEquals(id, b.sampleIndex(r));
        }
      }
      out.add(ids);
    }
    return out;
  }

  static List<List<Integer>> ids(int[]... batches) {
    return Arrays.stream(batches).map(b -> IntStream.of(b).boxed().toList()).toList();
  }

  @Test
  void layoutsComeFromTheShapeOrTheDeclaration() {
    // A 28x28 digit is an image (batch, height, width), not a sequence.
    assertEquals("NHW", DigitProvider.layout(64).data().get(0).layout());
    assertEquals("N", DigitProvider.layout(64).label().get(0).layout());
    // Character windows declare theirs: (batch, time).
    assertEquals("NT", CharWindowProvider.layout(16).data().get(0).layout());
    assertEquals("NT", CharWindowProvider.layout(16).label().get(0).layout());
  }

  @Test
  void metadataComesFromTheAnnotations() {
    try (PointProvider p = provider(b -> b.batchSize(3))) {
      assertEquals(3, p.batchSize());
      assertEquals("xy", p.provideData().get(0).name());
      assertArrayEquals(new long[] {3, 2}, p.provideData().get(0).shape().toLongArray());
      assertEquals(DType.FLOAT32, p.provideData().get(0).dtype());
      assertEquals("softmax_label", p.provideLabel().get(0).name());
      assertArrayEquals(new long[] {3}, p.provideLabel().get(0).shape().toLongArray());
      assertEquals(DType.INT32, p.provideLabel().get(0).dtype());
      assertEquals("NC", p.provideData().get(0).layout());   // a vector of two features
      assertEquals("N", p.provideLabel().get(0).layout());   // a class index per sample
      assertEquals("softmax_label", PointBatch.LABEL);
      assertEquals(64, DigitProvider.DEFAULT_BATCH_SIZE);
    }
  }

  @Test
  void padWrap() {
    try (PointProvider p = provider(b -> b.batchSize(3).lastBatch(LastBatch.PAD_WRAP))) {
      List<Integer> pads = new ArrayList<>();
      assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9, 0, 1}), epoch(p));
      for (PointBatch b : p) {
        pads.add(b.pad());
        assertEquals(b.rows() - b.pad(), b.countSamples());
      }
      assertEquals(List.of(0, 0, 0, 2), pads);
    }
  }

  @Test
  void rollOverCarriesIntoTheNextEpochs() {
    try (PointProvider p = provider(b -> b.batchSize(3).lastBatch(LastBatch.ROLL_OVER))) {
      assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}), epoch(p));
      assertEquals(ids(new int[] {9, 0, 1}, new int[] {2, 3, 4}, new int[] {5, 6, 7}), epoch(p));
      assertEquals(ids(new int[] {8, 9, 0}, new int[] {1, 2, 3}, new int[] {4, 5, 6}, new int[] {7, 8, 9}), epoch(p));
    }
  }

  @Test
  void discard() {
    try (PointProvider p = provider(b -> b.batchSize(3).lastBatch(LastBatch.DISCARD))) {
      assertEquals(3, epoch(p).size());
    }
  }

  @Test
  void partial() {
    try (PointProvider p = provider(b -> b.batchSize(3).lastBatch(LastBatch.PARTIAL))) {
      List<List<Integer>> e = epoch(p);
      assertEquals(List.of(9), e.get(3));
      PointBatch last = null;
      for (PointBatch b : p) {
        last = b;
      }
      assertEquals(1, last.rows());
      assertEquals(1, last.getXy().size(0));
    }
  }

  @Test
  void padConstantUsesThePaddingValuePerName() {
    try (PointProvider p = provider(b -> b.batchSize(3).lastBatch(LastBatch.PAD_CONSTANT)
        .padding("xy", -1).labelPadding(-7))) {
      PointBatch last = null;
      for (PointBatch b : p) {
        last = b;
      }
      assertEquals(2, last.pad());
      assertEquals(9f, last.getXy().getFloat(0, 0));
      assertEquals(-1f, last.getXy().getFloat(1, 1));
      assertEquals(-7, last.getLabel().getInt(2));
      assertEquals(-1, last.sampleIndex(2));
    }
  }

  @Test
  void shuffleMatchesArrayDataProviderWithTheSameSeed() {
    INDArray xs = Nd4j.create(points(N).stream().map(Point::xy).toArray(float[][]::new));
    INDArray ys = Nd4j.createFromArray(points(N).stream().mapToInt(Point::label).toArray());
    try (PointProvider p = provider(b -> b.batchSize(3).shuffle(true).seed(7).lastBatch(LastBatch.PAD_WRAP));
        ArrayDataProvider a = ArrayDataProvider.create(b -> b.data("xy", xs).label(ys).batchSize(3)
            .shuffle(true).seed(7).lastBatch(LastBatch.PAD_WRAP))) {
      for (int e = 0; e < 3; e++) {
        List<List<Integer>> gen = epoch(p);
        List<List<Integer>> ref = new ArrayList<>();
        for (NamedBatch b : a) {
          ref.add(Arrays.stream(b.sampleIndices()).mapToInt(i -> (int) i).boxed().toList());
        }
        assertEquals(ref, gen, "epoch " + e);
        List<Integer> flat = gen.stream().flatMap(List::stream).limit(N).sorted().toList();
        assertEquals(IntStream.range(0, N).boxed().toList(), flat, "a permutation");
      }
    }
  }

  @Test
  void shardsAreDisjointAndCovering() {
    List<Integer> all = new ArrayList<>();
    for (int part = 0; part < 3; part++) {
      int k = part;
      try (PointProvider p = provider(b -> b.batchSize(2).shard(3, k).shuffle(true).seed(3))) {
        epoch(p).forEach(all::addAll);
      }
    }
    assertEquals(IntStream.range(0, N).boxed().toList(), all.stream().sorted().toList());
  }

  @Test
  void resumesMidEpochWithTheIdenticalRemainingOrder() {
    List<List<Integer>> full;
    try (PointProvider p = provider(b -> b.batchSize(3).shuffle(true).seed(11).lastBatch(LastBatch.ROLL_OVER))) {
      epoch(p);
      full = epoch(p);
    }
    IterationState saved;
    try (PointProvider p = provider(b -> b.batchSize(3).shuffle(true).seed(11).lastBatch(LastBatch.ROLL_OVER))) {
      epoch(p);
      Iterator<PointBatch> it = p.iterator();
      it.next();
      saved = IterationState.decode(p.saveState().encode());
    }
    try (PointProvider p = provider(b -> b.batchSize(3).shuffle(true).seed(11).lastBatch(LastBatch.ROLL_OVER))) {
      p.restoreState(saved);
      assertEquals(full.subList(1, full.size()), epoch(p));
    }
  }

  @Test
  void aNewIterationSupersedesTheOldOne() {
    try (PointProvider p = provider(b -> b.batchSize(3))) {
      Iterator<PointBatch> first = p.iterator();
      first.next();
      p.iterator();
      assertThrows(IllegalStateException.class, first::hasNext);
    }
  }

  @Test
  void splitGivesTypedSubBatchesAndLoadDataFillsTargets() {
    try (PointProvider p = provider(b -> b.batchSize(3).lastBatch(LastBatch.PAD_WRAP))) {
      PointBatch last = null;
      for (PointBatch b : p) {
        last = b;
      }
      List<PointBatch> parts = last.split(List.of(Device.cpu(0), Device.cpu(1)));
      assertEquals(2, parts.size());
      assertEquals(2, parts.get(0).rows());
      assertEquals(1, parts.get(0).pad(), "rows 1 and 2 of [9, 0, 1] are padding");
      assertEquals(1, parts.get(1).pad());
      assertEquals(1f, parts.get(1).getXy().getFloat(0, 0), "row 2 wraps to sample 1");
      INDArray t0 = Nd4j.create(DataType.FLOAT, 2, 2);
      INDArray t1 = Nd4j.create(DataType.FLOAT, 1, 2);
      last.loadData(List.of(List.of(new SlicedNDArray(0, 2, t0), new SlicedNDArray(2, 3, t1))));
      assertEquals(9f, t0.getFloat(0, 0));
      assertEquals(1f, t1.getFloat(0, 0));
      PointBatch copy = last.copy();
      assertEquals(last.getXy(), copy.getXy());
    }
  }

  @Test
  void aWrongShapeNamesTheFieldTheSampleAndBothShapes() {
    List<Point> bad = new ArrayList<>(points(5));
    bad.set(3, new Point(new float[] {1, 2, 3}, 0));
    try (PointProvider p = PointProvider.create(b -> b.samples(bad).batchSize(5))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.iterator().next());
      assertEquals("field 'xy' of sample 3: expected shape (2,) (2 elements), got (3,)", e.getMessage());
    }
  }

  @Test
  void aRaggedImageNamesItsBadRow() {
    float[][] img = new float[28][28];
    img[5] = new float[27];
    try (DigitProvider p = DigitProvider.create(b -> b.samples(List.of(new Digit(new float[28][28], 1),
        new Digit(img, 2))))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.iterator().next());
      assertEquals("field 'image' of sample 1: expected shape (28, 28) (784 elements), got (28, 27)", e.getMessage());
    }
  }

  @Test
  void ofTwoBadSamplesInABatchTheFirstIsNamed() {
    // Sample 1 has a ragged image, found when its rows are copied; sample 2 has none at all, found
    // when it is read, which the collate does before it copies sample 1: the engine still names 1.
    float[][] ragged = new float[28][28];
    ragged[5] = new float[27];
    List<Digit> digits = List.of(new Digit(new float[28][28], 0), new Digit(ragged, 1), new Digit(null, 2),
        new Digit(new float[28][28], 3));
    String expected = "field 'image' of sample 1: expected shape (28, 28) (784 elements), got (28, 27)";
    try (DigitProvider p = DigitProvider.create(b -> b.samples(digits).batchSize(4))) {
      assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> p.iterator().next()).getMessage());
    }
    try (DigitProvider p = DigitProvider.create(b -> b.samples(digits).batchSize(4).readers(2))) {
      RuntimeException e = assertThrows(RuntimeException.class, () -> p.iterator().next());
      assertTrue(e.getMessage().contains("sample 1"), e.getMessage());
      assertEquals(expected, e.getCause().getMessage());
    }
  }

  @Test
  void eachMemberIsReadOncePerSampleInRowOrder() {
    // The collate reads samples ahead of its copies; the calls must still be those of a plain loop.
    List<String> log = new ArrayList<>();
    List<Logged> samples = IntStream.range(0, 10).mapToObj(i -> new Logged(i, log)).toList();
    try (LoggedProvider p = LoggedProvider.create(b -> b.samples(samples).shuffle(true).seed(7)
        .lastBatch(LastBatch.PARTIAL))) {
      List<String> expected = new ArrayList<>();
      List<Integer> seen = new ArrayList<>();
      for (LoggedBatch b : p) {
        for (int r = 0; r < b.rows(); r++) {
          int id = b.getId().getInt(r);
          assertEquals(-id, (int) b.getXy().getFloat(r, 1));
          expected.add("xy" + id);
          expected.add("id" + id);
          seen.add(id);
        }
        assertEquals(expected, log, "the log after each batch: its rows' getters, in row order, once each");
      }
      assertEquals(IntStream.range(0, 10).boxed().toList(), seen.stream().sorted().toList());
      assertTrue(!seen.equals(IntStream.range(0, 10).boxed().toList()), "shuffled: " + seen);
    }
  }

  @Test
  void digitsAreCopiedRowMajor() {
    float[][] img = new float[28][28];
    img[3][4] = 7;
    try (DigitProvider p = DigitProvider.create(b -> b.samples(List.of(new Digit(new float[28][28], 1),
        new Digit(img, 2))))) {
      DigitBatch b = p.iterator().next();
      assertEquals(2, b.rows(), "default batch size 64, PARTIAL: one short batch");
      assertEquals(7f, b.getImage().getFloat(1, 3, 4));
      assertEquals(0f, b.getImage().getFloat(0, 3, 4));
      assertEquals(2, b.getLabel().getInt(1));
    }
  }

  @Test
  void conversionsFlatArraysAndINDArrayMembers() {
    List<Reading> rs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      rs.add(new Reading(new float[] {i, 1, 2, 3, 4, 5}, new byte[] {(byte) 200, (byte) i},
          new boolean[] {true, i == 1}, Nd4j.createFromArray(new float[] {i, i, i, i}), 10 + i));
    }
    try (ReadingProvider p = ReadingProvider.create(b -> b.samples(rs).batchSize(3))) {
      ReadingBatch b = p.iterator().next();
      assertArrayEquals(new long[] {3, 2, 3}, b.getGrid().shape());
      assertEquals(2f, b.getGrid().getFloat(2, 0, 0));
      assertEquals(5f, b.getGrid().getFloat(1, 1, 2));
      assertEquals(DataType.UINT8, b.getRaw().dataType());
      assertEquals(200, b.getRaw().getInt(0, 0));
      assertEquals(1f, b.getMask().getFloat(1, 1));
      assertEquals(0f, b.getMask().getFloat(2, 1));
      assertEquals(2f, b.getEmbedding().getFloat(2, 3));
      assertEquals(DataType.FLOAT, b.getTarget().dataType());
      assertEquals(12f, b.getTarget().getFloat(2));
    }
  }

  @Test
  void streamingSourcesSupportThePoliciesThatNeedNoRandomAccess() {
    try (PointProvider p = PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3)
        .lastBatch(LastBatch.PAD_WRAP))) {
      assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9, 0, 1}), epoch(p));
    }
    // An Iterable that starts a new pass per iterator() resumes by replay: the state after two
    // batches restores to the last two.
    IterationState afterTwo;
    try (PointProvider p = PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3)
        .lastBatch(LastBatch.PAD_WRAP))) {
      Iterator<PointBatch> it = p.iterator();
      it.next();
      it.next();
      afterTwo = p.saveState();
    }
    try (PointProvider p = PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3)
        .lastBatch(LastBatch.PAD_WRAP))) {
      p.restoreState(afterTwo);
      assertEquals(ids(new int[] {6, 7, 8}, new int[] {9, 0, 1}), epoch(p));
    }
    try (PointProvider p = PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3)
        .lastBatch(LastBatch.ROLL_OVER))) {
      assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}), epoch(p));
      assertEquals(ids(new int[] {9, 0, 1}, new int[] {2, 3, 4}, new int[] {5, 6, 7}), epoch(p));
      assertEquals(ids(new int[] {8, 9, 0}, new int[] {1, 2, 3}, new int[] {4, 5, 6}, new int[] {7, 8, 9}), epoch(p));
    }
    try (PointProvider p = PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3))) {
      assertEquals(List.of(9), epoch(p).get(3));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3).shuffle(true)));
    assertTrue(e.getMessage().contains("shuffle needs a random-access source"));
    // Reader threads write a List source's batches ahead; a stream's are refused, not dropped.
    IllegalArgumentException readers = assertThrows(IllegalArgumentException.class,
        () -> PointProvider.create(b -> b.streaming(points(N)::iterator).batchSize(3).readers(2)));
    assertEquals("PointProvider: readers(2) writes a random-access source's batches ahead of the consumer on reader"
        + " threads; a streaming source is read on the consumer's thread: leave it unset, wrap the provider in"
        + " PrefetchingProvider, or pass a List", readers.getMessage());
  }

  @Test
  void daggerInjectsTheGeneratedBuilder() {
    SamplesComponent component = DaggerSamplesComponent.create();
    try (DigitProvider p = component.digits().samples(List.of(new Digit(new float[28][28], 3))).build()) {
      assertEquals(64, p.batchSize(), "Digit's declared default");
    }
  }

  @Test
  void kotlinSampleThroughKapt() {
    var summary = SensorDemoKt.summarizeSensors(10);
    assertEquals(3, summary.getBatches());
    assertEquals(List.of(4, 4, 4), summary.getRows());
    assertEquals(List.of(0, 0, 2), summary.getPads());
    assertEquals(List.of(0f, 4f, 8f), summary.getFirstReadings());
  }

  static String describe(List<List<Integer>> e) {
    return e.stream().map(Object::toString).collect(Collectors.joining(" "));
  }

  @Test
  void aKotlinVariableLengthSampleIsBucketedAndPadded() {
    // Lengths 1, 3, 2 in buckets of 2 and 4: bucket 2 holds utterances 0 and 2, bucket 4 utterance 1.
    var batches = dev.minibatch.samples.kotlin.UtteranceKt.utteranceBatches();
    assertEquals(2, batches.size());
    assertEquals(2, batches.get(0).getFirst());
    assertEquals(java.util.List.of(1, 2), batches.get(0).getSecond());
    assertEquals(java.util.List.of(java.util.List.of(0, -1), java.util.List.of(20, 21)), batches.get(0).getThird());
    assertEquals(4, batches.get(1).getFirst());
    assertEquals(java.util.List.of(3), batches.get(1).getSecond());
    assertEquals(java.util.List.of(java.util.List.of(10, 11, 12, -1)), batches.get(1).getThird());
  }

  @Test
  void aKotlinReaderPipelineFeedsTheGeneratedProvider() {
    java.util.List<java.util.List<Float>> batches = dev.minibatch.samples.kotlin.SensorDemoKt.pipelineReadings(20, 7);
    assertEquals(4, batches.size());
    java.util.List<Float> all = batches.stream().flatMap(java.util.List::stream).sorted().toList();
    // Every doubled reading 0, 2, …, 38 exactly once: map, xmap and shuffle lose and repeat nothing.
    assertEquals(java.util.stream.IntStream.range(0, 20).mapToObj(i -> 2f * i).toList(), all);
    java.util.List<Float> order = batches.stream().flatMap(java.util.List::stream).toList();
    assertEquals(order, dev.minibatch.samples.kotlin.SensorDemoKt.pipelineReadings(20, 7).stream()
        .flatMap(java.util.List::stream).toList(), "the same seed must give the same order");
    assertTrue(!order.equals(all), "shuffle(8) left the order sorted");
  }

  /**
   * Issue 10: a provider without a declared batch size (Point declares none) used to make the whole
   * data set one batch silently; now build() says what to set. Digit declares 64, which the builder
   * starts from; batchSize(0) explicitly asks for the whole data set as one batch.
   */
  @Test
  void aBatchSizeMustBeDeclaredOrSet() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> PointProvider.builder().samples(points(N)).build());
    assertTrue(e.getMessage().startsWith("no batch size: call batchSize(n) on the builder"), e.getMessage());
    assertEquals(0, PointProvider.DEFAULT_BATCH_SIZE);
    try (PointProvider whole = PointProvider.builder().samples(points(N)).batchSize(0).build()) {
      assertEquals(N, whole.batchSize());
    }
    // Digit's declared 64 is used (no "no batch size" error); the empty source is what is wrong.
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
        () -> DigitProvider.builder().samples(List.of()).build());
    assertTrue(empty.getMessage().contains("no samples"), empty.getMessage());
  }
}
