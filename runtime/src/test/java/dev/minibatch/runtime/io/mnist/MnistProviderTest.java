package dev.minibatch.runtime.io.mnist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.idx.IdxFile;
import dev.minibatch.runtime.io.idx.IdxFile.IdxArray;
import dev.minibatch.shape.Shape;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class MnistProviderTest {
  static final Path IMAGES = TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz");
  static final Path LABELS = TestFiles.resource("mnist/t10k-labels-idx1-ubyte.gz");

  static MnistProvider.Builder t10k() {
    return MnistProvider.builder().image(IMAGES).label(LABELS);
  }

  @Test
  void oneEpochDeliversEveryTestImageWithThePublishedLabelHistogram() {
    try (MnistProvider p = t10k().batchSize(128).flat(true).build()) {
      assertEquals(Shape.of(128, 784), p.provideData().get(0).shape());
      assertEquals("data", p.provideData().get(0).name());
      assertEquals(Shape.of(128), p.provideLabel().get(0).shape());
      int[] hist = new int[10];
      int batches = 0;
      float max = 0;
      for (NamedBatch b : p) {
        INDArray y = b.get("softmax_label");
        for (int i = 0; i < b.countSamples(); i++) {
          hist[y.getInt(i)]++;
        }
        max = Math.max(max, b.get("data").maxNumber().floatValue());
        if (batches == 0) {
          assertArrayEquals(new float[] {7, 2, 1, 0, 4, 1, 4, 9, 5, 9}, Arrays.copyOf(y.toFloatVector(), 10));
        }
        batches++;
      }
      assertEquals(79, batches);
      assertArrayEquals(new int[] {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}, hist);
      assertEquals(1f, max);
    }
  }

  @Test
  void imagesAreOneByRowsByColsAndScaledAsAsked() {
    try (MnistProvider p = t10k().batchSize(10).scale(1f / 256).lastBatch(LastBatch.DISCARD).build()) {
      assertEquals(Shape.of(10, 1, 28, 28), p.provideData().get(0).shape());
      Sample s = p.sample(0);
      assertArrayEquals(new long[] {1, 28, 28}, s.get("data").shape());
      assertEquals(7f, s.get("softmax_label").getFloat(0));
      float max = 0;
      for (Sample x : p.samples()) {
        max = Math.max(max, x.get("data").maxNumber().floatValue());
      }
      assertEquals(255f / 256, max);
    }
  }

  @Test
  void shuffleWithSeedIsRepeatableAndShardsAreDisjointAndCovering() {
    try (MnistProvider a = t10k().batchSize(100).shuffle(true).seed(42).build();
        MnistProvider b = t10k().batchSize(100).shuffle(true).seed(42).build()) {
      NamedBatch x = a.iterator().next();
      NamedBatch y = b.iterator().next();
      assertArrayEquals(x.sampleIndices(), y.sampleIndices());
      assertEquals(x.get("data"), y.get("data"));
      assertFalse(Arrays.equals(new long[] {0, 1, 2}, Arrays.copyOf(x.sampleIndices(), 3)));
    }
    BitSet seen = new BitSet();
    for (int part = 0; part < 3; part++) {
      try (MnistProvider p = t10k().batchSize(64).shuffle(true).seed(9).shard(3, part).build()) {
        for (NamedBatch b : p) {
          for (int r = 0; r < b.countSamples(); r++) {
            int idx = (int) b.sampleIndex(r);
            assertFalse(seen.get(idx), "sample " + idx + " in two parts");
            seen.set(idx);
          }
        }
      }
    }
    assertEquals(10000, seen.cardinality());
  }

  @Test
  void shuffledBatchesHoldTheFilesPixelsScaledAndIntLabelsOfTheirSamples() {
    IdxArray pixels = IdxFile.read(IMAGES, IdxFile.MNIST_IMAGES_MAGIC);
    int[] labels = IdxFile.read(LABELS, IdxFile.MNIST_LABELS_MAGIC).toIntArray();
    try (MnistProvider p = t10k().batchSize(300).shuffle(true).seed(5).labelType(DType.INT32)
        .lastBatch(LastBatch.PAD_CONSTANT).padding("softmax_label", -1).build()) {
      assertEquals(DType.INT32, p.provideLabel().get(0).dtype());
      int batches = 0;
      for (NamedBatch b : p) {
        INDArray x = b.get("data");
        INDArray y = b.get("softmax_label");
        assertEquals(DataType.INT32, y.dataType());
        int real = b.countSamples();
        assertEquals(300, x.size(0));
        for (int r = 0; r < real; r += 37) {
          int idx = (int) b.sampleIndex(r);
          assertEquals(labels[idx], y.getInt(r));
          for (int k = 0; k < 784; k += 13) {
            assertEquals((float) pixels.getDouble((long) idx * 784 + k) / 255f,
                x.getFloat(r, 0, k / 28, k % 28), 1e-7, "sample " + idx + " pixel " + k);
          }
        }
        for (int r = real; r < x.size(0); r++) {
          assertEquals(-1, y.getInt(r));
          assertEquals(0f, x.getFloat(r, 0, 14, 14));
        }
        batches++;
        if (batches == 34) {
          assertEquals(200, b.pad(), "10000 = 33 x 300 + 100: the last batch pads 200 rows");
        }
      }
      assertEquals(34, batches);
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(60)
  void theReaderFormFeedsThePipelineEngineWithTheSamplesInSourceOrder() throws InterruptedException {
    java.util.Set<Thread> before = dev.minibatch.runtime.internal.pipeline.LiveThreads.workers();
    try (MnistProvider p = t10k().flat(true).batchSize(10).build()) {
      // Labels through a parallel map on 2 workers, order kept: the file's first labels.
      java.util.List<Integer> first = p.reader().firstn(10)
          .xmap(2, 4, true, s -> s.get("softmax_label").getInt(0)).toList();
      assertEquals(java.util.List.of(7, 2, 1, 0, 4, 1, 4, 9, 5, 9), first);
      try (java.util.stream.Stream<Sample> all = p.reader().stream()) {
        assertEquals(10000, all.count());
      }
    }
    assertEquals(java.util.Set.of(), dev.minibatch.runtime.internal.pipeline.LiveThreads.awaitOnly(before, 20));
  }

  @Test
  void resumesMidEpochWithTheSameRemainingBatches() {
    IterationState state;
    long[] expected;
    try (MnistProvider p = t10k().batchSize(500).shuffle(true).seed(3).build()) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      it.next();
      state = p.saveState();
      expected = it.next().sampleIndices();
    }
    try (MnistProvider q = t10k().batchSize(500).shuffle(true).seed(3).build()) {
      q.restoreState(IterationState.decode(state.encode()));
      assertArrayEquals(expected, q.iterator().next().sampleIndices());
    }
  }

  @Test
  void imageAndLabelCountsMustAgreeAndMagicNumbersAreChecked() {
    Path trainLabels = TestFiles.resource("mnist/train-labels-idx1-ubyte.gz");
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> MnistProvider.builder().image(IMAGES).label(trainLabels).batchSize(0).build());
    assertTrue(e.getMessage().contains("holds 60000 labels but " + IMAGES + " holds 10000 images"), e.getMessage());
    e = assertThrows(FileFormatException.class, () -> MnistProvider.builder().image(LABELS).label(LABELS).batchSize(0).build());
    assertTrue(e.getMessage().contains("expected 2051"), e.getMessage());
  }
}
