package dev.minibatch.runtime.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.array.ArrayDataProvider;
import org.junit.jupiter.api.Test;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;

class InteropTest {
  /** y = 2 x0 - 3 x1 + 1 on 64 points of a grid. */
  private static ArrayDataProvider regression(int batch) {
    float[][] x = new float[64][2];
    float[][] y = new float[64][1];
    for (int i = 0; i < 64; i++) {
      x[i][0] = (i % 8) / 8f;
      x[i][1] = (i / 8) / 8f;
      y[i][0] = 2 * x[i][0] - 3 * x[i][1] + 1;
    }
    return ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(batch).shuffle(true).seed(3).build();
  }

  @Test
  void multiDataSetIteratorWalksEpochsAndResets() {
    try (ArrayDataProvider p = regression(10)) {
      MultiDataSetIterator it = ProviderIterators.multiDataSet(p);
      assertTrue(it.resetSupported());
      assertFalse(it.asyncSupported());
      int batches = 0;
      long rows = 0;
      while (it.hasNext()) {
        MultiDataSet m = it.next();
        assertEquals(1, m.getFeatures().length);
        assertEquals(1, m.getLabels().length);
        rows += m.getFeatures(0).size(0);
        batches++;
      }
      assertEquals(7, batches);
      assertEquals(64, rows);
      it.reset();
      assertTrue(it.hasNext());
    }
  }

  @Test
  void dataSetIteratorNeedsOneDataAndOneLabel() {
    try (ArrayDataProvider p = regression(16)) {
      DataSetIterator it = ProviderIterators.dataSet(p);
      assertEquals(2, it.inputColumns());
      assertEquals(1, it.totalOutcomes());
      assertEquals(16, it.batch());
      assertArrayEquals(new long[] {16, 2}, it.next().getFeatures().shape());
    }
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("a", Nd4j.zeros(4, 2)).data("b", Nd4j.zeros(4)).batchSize(0).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProviderIterators.dataSet(p));
      assertEquals("a DataSetIterator needs exactly one data and one label array; this provider has data [a, b] and labels []; "
          + "use multiDataSet(provider)", e.getMessage());
    }
  }

  @Test
  void placeholderMismatchesAreListedBeforeTraining() {
    SameDiff sd = SameDiff.create();
    sd.placeHolder("x", DataType.DOUBLE, -1, 3);
    sd.placeHolder("target", DataType.FLOAT, -1, 1);
    try (ArrayDataProvider p = regression(8)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SameDiffBinding.check(p, sd));
      assertEquals("the provider does not match the graph's placeholders:\n"
          + "  - 'x': provided shape [8, 2] (batch axis first), placeholder shape [-1, 3]\n"
          + "  - 'x': provided dtype FLOAT32 (FLOAT), placeholder dtype DOUBLE\n"
          + "  - 'y' is provided but the graph has no variable of that name; placeholders are [target, x]\n"
          + "  - placeholder 'target' is not provided; the provider's names are [x, y]", e.getMessage());
    }
  }

  @Test
  void sameDiffTrainsFromAProvider() {
    SameDiff sd = SameDiff.create();
    SDVariable x = sd.placeHolder("x", DataType.FLOAT, -1, 2);
    SDVariable y = sd.placeHolder("y", DataType.FLOAT, -1, 1);
    SDVariable w = sd.var("w", Nd4j.zeros(DataType.FLOAT, 2, 1));
    SDVariable b = sd.var("b", Nd4j.zeros(DataType.FLOAT, 1, 1));
    SDVariable pred = x.mmul(w).add(b);
    sd.loss().meanSquaredError("loss", y, pred, null);
    try (ArrayDataProvider p = regression(8)) {
      sd.setTrainingConfig(SameDiffBinding.bind(TrainingConfig.builder().updater(new Sgd(0.5)), p, sd).build());
      sd.fit(ProviderIterators.multiDataSet(p), 200);
      INDArray learned = sd.getVariable("w").getArr();
      // The data is exactly linear: gradient descent recovers w = (2, -3), b = 1.
      assertEquals(2.0, learned.getDouble(0, 0), 0.05);
      assertEquals(-3.0, learned.getDouble(1, 0), 0.05);
      assertEquals(1.0, sd.getVariable("b").getArr().getDouble(0, 0), 0.05);
    }
  }
}
