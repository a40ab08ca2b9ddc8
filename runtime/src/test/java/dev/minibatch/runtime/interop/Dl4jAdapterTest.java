package dev.minibatch.runtime.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.mnist.MnistProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.memory.enums.AllocationPolicy;
import org.nd4j.linalg.api.memory.enums.LearningPolicy;
import org.nd4j.linalg.api.memory.enums.ResetPolicy;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.AsyncDataSetIterator;
import org.nd4j.linalg.dataset.AsyncMultiDataSetIterator;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The DL4J side of {@link ProviderIterators}, exercised the way DL4J users train: ND4J's own
 * {@code AsyncDataSetIterator} (what DL4J's {@code fit} wraps iterators in), loops inside open ND4J workspaces, and a {@code MultiLayerNetwork}.
 */
class Dl4jAdapterTest {
  private static final Path IMAGES = TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz");
  private static final Path LABELS = TestFiles.resource("mnist/t10k-labels-idx1-ubyte.gz");
  private static final int SAMPLES = 203;

  /**
   * Sample i has features {i, 2i + 1, -i} and label i, so every delivered row can be checked
   * against its label whatever the shuffle.
   */
  private static ArrayDataProvider.Builder indexed(int samples) {
    float[][] x = new float[samples][3];
    float[] y = new float[samples];
    for (int i = 0; i < samples; i++) {
      x[i] = new float[] {i, 2 * i + 1, -i};
      y[i] = i;
    }
    return ArrayDataProvider.builder().data("x", x).label("y", y).shuffle(true).seed(11);
  }

  /** Checks that every row matches its label and marks the sample seen; returns the rows. */
  private static long checkRows(INDArray features, INDArray labels, BitSet seen) {
    long rows = features.size(0);
    assertEquals(rows, labels.size(0));
    for (int r = 0; r < rows; r++) {
      int i = (int) labels.getFloat(r);
      assertArrayEquals(new float[] {i, 2 * i + 1, -i}, features.getRow(r).toFloatVector(), "row " + r + " of sample " + i);
      assertFalse(seen.get(i), "sample " + i + " delivered twice in one epoch");
      seen.set(i);
    }
    return rows;
  }

  /** A workspace that learns its size in the first loop and then reuses the same memory every loop. */
  private static final WorkspaceConfiguration CYCLIC = WorkspaceConfiguration.builder()
      .initialSize(0)
      .policyLearning(LearningPolicy.FIRST_LOOP)
      .policyAllocation(AllocationPolicy.OVERALLOCATE)
      .policyReset(ResetPolicy.BLOCK_LEFT)
      .build();

  @Test
  void nextInsideAnOpenWorkspaceNeitherFreesNorOverwritesTheProvidersBuffers() {
    try (ArrayDataProvider p = indexed(SAMPLES).batchSize(16).lastBatch(LastBatch.PAD_WRAP).build()) {
      for (boolean detach : new boolean[] {true, false}) {
        DataSetIterator it = ProviderIterators.dataSet(p, ProviderIterators.Options.builder().detach(detach).build());
        readFourEpochsInsideAWorkspace(it, detach);
      }
    }
  }

  @SuppressWarnings("try") // the workspace scope is entered and left, never referenced
  private static void readFourEpochsInsideAWorkspace(DataSetIterator it, boolean detach) {
    for (int epoch = 0; epoch < 4; epoch++) {
      BitSet seen = new BitSet();
      long rows = 0;
      while (it.hasNext()) {
        try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().getAndActivateWorkspace(CYCLIC, "CALLER_LOOP")) {
          DataSet d = it.next();
          // Detached batches live outside every workspace; views are copied into the caller's
          // workspace, as DL4J's own iterators allocate theirs.
          assertEquals(!detach, d.getFeatures().isAttached());
          rows += checkRows(d.getFeatures(), d.getLabels(), seen);
          // What a training step does: allocate in the workspace, over whatever the loop before left there.
          Nd4j.rand(DataType.FLOAT, 64, 64).addi(7);
        }
      }
      assertEquals(SAMPLES, rows, "epoch " + epoch);
      assertEquals(SAMPLES, seen.cardinality());
      it.reset();
    }
  }

  @Test
  @SuppressWarnings("try") // the workspace scope is entered and left, never referenced
  void aProvidersOwnIteratorUsedInsideAWorkspaceKeepsItsBuffersOutsideIt() {
    try (ArrayDataProvider p = indexed(SAMPLES).batchSize(16).lastBatch(LastBatch.PAD_WRAP).build()) {
      for (int epoch = 0; epoch < 3; epoch++) {
        BitSet seen = new BitSet();
        long rows = 0;
        BatchIterator<NamedBatch> it = p.iterator();
        while (true) {
          try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().getAndActivateWorkspace(CYCLIC, "CALLER_LOOP")) {
            if (!it.hasNext()) {
              break;
            }
            NamedBatch b = it.next();
            assertFalse(b.get("x").isAttached(), "the batch buffer was allocated in the caller's workspace");
            Batch real = b.slice(0, b.countSamples());
            rows += checkRows(real.get("x"), real.get("y"), seen);
            Nd4j.rand(DataType.FLOAT, 64, 64).addi(7);
          }
        }
        assertEquals(SAMPLES, rows, "epoch " + epoch);
      }
    }
  }

  @Test
  void dl4jsAsyncDataSetIteratorPrefetchesRightBatchesOverSeveralEpochs() {
    try (ArrayDataProvider p = indexed(SAMPLES).batchSize(8).lastBatch(LastBatch.PAD_WRAP).build()) {
      // Queue of 8 batches: more than the provider's buffers, so a shared buffer would show.
      DataSetIterator it = new AsyncDataSetIterator(ProviderIterators.dataSet(p), 8, true);
      for (int epoch = 0; epoch < 4; epoch++) {
        BitSet seen = new BitSet();
        long rows = 0;
        while (it.hasNext()) {
          DataSet d = it.next();
          rows += checkRows(d.getFeatures(), d.getLabels(), seen);
        }
        assertEquals(SAMPLES, rows, "epoch " + epoch);
        it.reset();
      }
      ((AsyncDataSetIterator) it).shutdown();
    }
  }

  /**
   * Sample i has features {i, 2i + 1, -i} and class i % 10, in order: batch k of 64 holds samples
   * 64k.., so every row of every batch has one known value, independent of the code under test.
   */
  private static ArrayDataProvider tenThousandInOrder() {
    int n = 10_000;
    float[][] x = new float[n][];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      x[i] = new float[] {i, 2 * i + 1, -i};
      y[i] = i % 10;
    }
    return ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(64).build();
  }

  /** Checks that {@code features}/{@code labels} are exactly batch {@code k} of {@link #tenThousandInOrder}, labels one-hot. */
  private static void checkBatch(int epoch, int k, INDArray features, INDArray labels) {
    int first = 64 * k;
    int rows = Math.min(64, 10_000 - first);
    String where = "epoch " + epoch + ", batch " + k;
    assertArrayEquals(new long[] {rows, 3}, features.shape(), where);
    assertArrayEquals(new long[] {rows, 10}, labels.shape(), where);
    for (int r = 0; r < rows; r++) {
      int i = first + r;
      float[] oneHot = new float[10];
      oneHot[i % 10] = 1;
      assertArrayEquals(new float[] {i, 2 * i + 1, -i}, features.getRow(r).toFloatVector(), where + ", row " + r);
      assertArrayEquals(oneHot, labels.getRow(r).toFloatVector(), where + ", row " + r);
    }
  }

  /**
   * The line DL4J users write, with the defaults: DL4J's prefetching wrapper without workspaces
   * keeps four batches queued while the consumer works on an earlier one, so batches that were
   * views of the provider's reused buffers would be overwritten under it (156 of 157 were).
   */
  @Test
  void dl4jsAsyncDataSetIteratorWithoutWorkspacesGetsEveryBatchRightByDefault() {
    try (ArrayDataProvider p = tenThousandInOrder()) {
      ProviderIterators.Options oneHot = ProviderIterators.Options.builder().oneHot(10).build();
      AsyncDataSetIterator it = new AsyncDataSetIterator(ProviderIterators.dataSet(p, oneHot), 4, false);
      try {
        for (int epoch = 0; epoch < 2; epoch++) {
          List<DataSet> batches = new ArrayList<>();
          it.forEachRemaining(batches::add);
          assertEquals(157, batches.size(), "epoch " + epoch);
          for (int k = 0; k < batches.size(); k++) {
            checkBatch(epoch, k, batches.get(k).getFeatures(), batches.get(k).getLabels());
          }
          it.reset();
        }
      } finally {
        it.shutdown();
      }
    }
  }

  /** {@link #dl4jsAsyncDataSetIteratorWithoutWorkspacesGetsEveryBatchRightByDefault} for the MultiDataSet adapter. */
  @Test
  void dl4jsAsyncMultiDataSetIteratorWithoutWorkspacesGetsEveryBatchRightByDefault() {
    try (ArrayDataProvider p = tenThousandInOrder()) {
      ProviderIterators.Options oneHot = ProviderIterators.Options.builder().oneHot(10).build();
      AsyncMultiDataSetIterator it = new AsyncMultiDataSetIterator(ProviderIterators.multiDataSet(p, oneHot), 4, false);
      try {
        for (int epoch = 0; epoch < 2; epoch++) {
          List<MultiDataSet> batches = new ArrayList<>();
          it.forEachRemaining(batches::add);
          assertEquals(157, batches.size(), "epoch " + epoch);
          for (int k = 0; k < batches.size(); k++) {
            checkBatch(epoch, k, batches.get(k).getFeatures(0), batches.get(k).getLabels(0));
          }
          it.reset();
        }
      } finally {
        it.shutdown();
      }
    }
  }

  @Test
  void keptBatchesStayValidAfterTheIteratorMovesOnByDefaultOnBothAdapters() {
    try (ArrayDataProvider p = indexed(SAMPLES).batchSize(10).build()) {
      List<DataSet> kept = new ArrayList<>();
      DataSetIterator it = ProviderIterators.dataSet(p);
      it.forEachRemaining(kept::add);
      BitSet seen = new BitSet();
      long rows = 0;
      for (DataSet d : kept) {
        rows += checkRows(d.getFeatures(), d.getLabels(), seen);
      }
      assertEquals(SAMPLES, rows);

      List<MultiDataSet> keptMulti = new ArrayList<>();
      MultiDataSetIterator multi = ProviderIterators.multiDataSet(p);
      multi.forEachRemaining(keptMulti::add);
      seen.clear();
      for (MultiDataSet m : keptMulti) {
        checkRows(m.getFeatures(0), m.getLabels(0), seen);
      }
      assertEquals(SAMPLES, seen.cardinality());
    }
  }

  @Test
  void paddingRowsAreDroppedUnlessKept() {
    // 10 samples in batches of 4: rows 4, 4, 2 (+ 2 padding rows in the last batch).
    for (LastBatch mode : new LastBatch[] {LastBatch.PAD_WRAP, LastBatch.PAD_CONSTANT}) {
      try (ArrayDataProvider p = indexed(10).batchSize(4).lastBatch(mode).build()) {
        List<Long> rows = new ArrayList<>();
        ProviderIterators.dataSet(p).forEachRemaining(d -> rows.add(d.getFeatures().size(0)));
        assertEquals(List.of(4L, 4L, 2L), rows, mode.toString());
        rows.clear();
        ProviderIterators.multiDataSet(p).forEachRemaining(m -> rows.add(m.getLabels(0).size(0)));
        assertEquals(List.of(4L, 4L, 2L), rows, mode.toString());
        rows.clear();
        ProviderIterators.dataSet(p, ProviderIterators.Options.builder().keepPadding(true).build())
            .forEachRemaining(d -> rows.add(d.getLabels().size(0)));
        assertEquals(List.of(4L, 4L, 4L), rows, mode.toString());
      }
    }
  }

  @Test
  void oneHotLabelsHaveOneOneAtTheClassIndexAndTotalOutcomesIsTheClassCount() {
    float[][] x = new float[7][2];
    int[] y = {0, 4, 2, 2, 1, 3, 0};
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(3).build()) {
      DataSetIterator it = ProviderIterators.dataSet(p, ProviderIterators.Options.builder().oneHot(5).build());
      assertEquals(5, it.totalOutcomes());
      assertEquals(2, it.inputColumns());
      List<float[]> rows = new ArrayList<>();
      while (it.hasNext()) {
        INDArray labels = it.next().getLabels();
        assertEquals(DataType.FLOAT, labels.dataType());
        for (int r = 0; r < labels.size(0); r++) {
          rows.add(labels.getRow(r).toFloatVector());
        }
      }
      assertEquals(7, rows.size());
      float[][] expected = {
        {1, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 0, 1, 0}, {1, 0, 0, 0, 0}};
      for (int i = 0; i < 7; i++) {
        assertArrayEquals(expected[i], rows.get(i), "sample " + i);
      }
    }
  }

  @Test
  void aLabelOutsideTheOneHotClassesNamesTheSampleAndTheValue() {
    float[][] x = new float[6][2];
    float[] y = {0, 1, 2, 3, 10, 1};
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(3).build()) {
      DataSetIterator it = ProviderIterators.dataSet(p, ProviderIterators.Options.builder().oneHot(4).build());
      it.next();
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, it::next);
      assertEquals("label 'y' of sample 4 is 10; oneHot(4) needs a class index 0..3", e.getMessage());
    }
    float[] fraction = {0, 1.5f};
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("x", new float[2][2]).label("y", fraction).batchSize(2).build()) {
      DataSetIterator it = ProviderIterators.dataSet(p, ProviderIterators.Options.builder().oneHot(4).build());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, it::next);
      assertEquals("label 'y' of sample 1 is 1.5; oneHot(4) needs a class index 0..3", e.getMessage());
    }
  }

  @Test
  void oneHotNeedsOneClassIndexPerSampleAndAPositiveClassCount() {
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("x", new float[4][2]).label("y", new float[4][3]).batchSize(2).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ProviderIterators.dataSet(p, ProviderIterators.Options.builder().oneHot(3).build()));
      assertEquals("oneHot(3) needs one class index per sample, but label 'y' has sample shape (3,)", e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProviderIterators.Options.builder().oneHot(0));
    assertEquals("oneHot's class count must be >= 1, got 0", e.getMessage());
  }

  @Test
  void withoutOneHotLabelsAreTheProvidersClassIndicesAndMasksAreAbsentForFixedMembers() {
    try (ArrayDataProvider p = indexed(10).batchSize(5).shuffle(false).build()) {
      DataSetIterator it = ProviderIterators.dataSet(p);
      assertEquals(1, it.totalOutcomes());
      assertFalse(it.asyncSupported());
      DataSet d = it.next();
      assertArrayEquals(new float[] {0, 1, 2, 3, 4}, d.getLabels().toFloatVector());
      assertNull(d.getFeaturesMaskArray());
      assertNull(d.getLabelsMaskArray());
    }
  }

  /**
   * The DL4J user: the bundled MNIST test digits through {@code dataSet(...)} with one-hot
   * labels into a 784-128-10 softmax network with MCXENT; half the digits train, the other half are
   * held out. The published result for this net on MNIST is about 97 %; 90 % on held-out digits
   * after two epochs on 5 000 is a generous bar that a broken label or feature path cannot reach.
   */
  @Test
  void aMultiLayerNetworkTrainsThroughTheAdapterToNinetyPercentOnHeldOutDigits() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .seed(7)
        .updater(new Adam(1e-3))
        .weightInit(WeightInit.XAVIER)
        .list()
        .layer(new DenseLayer.Builder().nIn(784).nOut(128).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(128).nOut(10).activation(Activation.SOFTMAX).build())
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    ProviderIterators.Options oneHot = ProviderIterators.Options.builder().oneHot(10).build();
    try (MnistProvider train = MnistProvider.builder().image(IMAGES).label(LABELS).flat(true).batchSize(64)
            .lastBatch(LastBatch.PAD_WRAP).shuffle(true).seed(5).shard(2, 0).build();
        MnistProvider heldOut = MnistProvider.builder().image(IMAGES).label(LABELS).flat(true).batchSize(100)
            .shard(2, 1).build()) {
      net.fit(ProviderIterators.dataSet(train, oneHot), 2);
      Evaluation eval = net.evaluate(ProviderIterators.dataSet(heldOut, oneHot));
      assertEquals(10, ProviderIterators.dataSet(train, oneHot).totalOutcomes());
      assertEquals(784, ProviderIterators.dataSet(train, oneHot).inputColumns());
      assertEquals(5000, countEvaluated(eval), "every held-out digit evaluated once");
      assertTrue(eval.accuracy() >= 0.90, "held-out accuracy " + eval.accuracy());
    }
  }

  private static int countEvaluated(Evaluation eval) {
    int n = 0;
    for (int actual = 0; actual < 10; actual++) {
      for (int predicted = 0; predicted < 10; predicted++) {
        n += eval.getConfusionMatrix().getCount(actual, predicted);
      }
    }
    return n;
  }
}
