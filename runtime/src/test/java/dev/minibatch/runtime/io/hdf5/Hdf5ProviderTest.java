package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shape.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;

class Hdf5ProviderTest {
  @Test
  void entriesBecomeClassesAndRowsBecomeSamples() {
    try (Hdf5Provider p = Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("float/float32", "int/int16"), "latest")
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("float/float32", "int/int16"), "earliest")
        .names("x", "y").oneHot(true).batchSize(14).build()) {
      assertEquals(List.of("latest", "earliest"), p.classNames());
      assertEquals(Shape.of(14, 5, 3), p.provideData().get(0).shape());
      assertEquals(Shape.of(14, 2), p.provideLabel().get(0).shape());
      NamedBatch b = p.iterator().next();
      INDArray x = b.get("x");
      for (int r = 0; r < 14; r++) {
        assertEquals(15.0 * (r % 7), x.getDouble(r, 0, 0), 0.0);
        assertEquals(15.0 * (r % 7) + 14, b.get("y").getDouble(r, 4, 2), 0.0);
        assertEquals(r < 7 ? 1.0 : 0.0, b.get("softmax_label").getDouble(r, 0));
        assertEquals(r < 7 ? 0.0 : 1.0, b.get("softmax_label").getDouble(r, 1));
      }
    }
  }

  @Test
  void skipFilterAndMaxSelectSamplesPerEntry() {
    try (Hdf5Provider p = Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a")
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "b")
        .select(s -> s.skip(1).max(2).filter("b", x -> x.get("int/int32").getDouble(0, 0) % 30 == 0))
        .batchSize(4).build()) {
      NamedBatch batch = p.iterator().next();
      assertEquals(4, batch.countSamples());
      double[] first = new double[4];
      for (int r = 0; r < 4; r++) {
        first[r] = batch.get("int/int32").getDouble(r, 0, 0);
      }
      // entry a: rows 1, 2; entry b: the even rows after row 0, at most two: 2, 4.
      assertArrayEquals(new double[] {15, 30, 30, 60}, first);
      assertArrayEquals(new float[] {0, 0, 1, 1}, batch.get("softmax_label").toFloatVector());
    }
  }

  @Test
  void classProbabilitiesDrawBatchesDeterministicallyWithMatchingLabels() {
    // Entries of class "a" are split (a, b, a): the draws still see each class's samples together.
    java.util.function.Supplier<Hdf5Provider.Builder> spec = () -> Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a", 3)
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "b", 1)
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "a", 3)
        .batchSize(5).seed(21);
    try (Hdf5Provider p = spec.get().build(); Hdf5Provider q = spec.get().build()) {
      assertEquals(21, p.numSamples());
      int[] perClass = new int[2];
      int batches = 0;
      java.util.BitSet seen = new java.util.BitSet();
      dev.minibatch.runtime.BatchIterator<NamedBatch> other = q.iterator();
      for (NamedBatch b : p) {
        NamedBatch c = other.next();
        assertArrayEquals(c.sampleIndices(), b.sampleIndices());
        for (int r = 0; r < b.countSamples(); r++) {
          int idx = (int) b.sampleIndex(r);
          assertFalse(seen.get(idx));
          seen.set(idx);
          int cls = b.get("softmax_label").getInt(r);
          perClass[cls]++;
          // Samples 0..13 are class a (both of its entries), 14..20 class b.
          assertEquals(idx < 14 ? 0 : 1, cls);
          assertEquals(15.0 * (idx % 7), b.get("int/int32").getDouble(r, 0, 0), 0.0);
        }
        batches++;
      }
      assertEquals(5, batches);
      assertEquals(21, seen.cardinality());
      assertArrayEquals(new int[] {14, 7}, perClass);
    }
  }

  @Test
  void wrapExamplesRepeatsClassesAndStateResumesTheDraws() {
    java.util.function.Supplier<Hdf5Provider.Builder> spec = () -> Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a", 1)
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "b", 1)
        .wrapExamples(true).epochLength(400).batchSize(100).seed(5).shuffle(true);
    long[] third;
    dev.minibatch.runtime.IterationState state;
    try (Hdf5Provider p = spec.get().build()) {
      dev.minibatch.runtime.BatchIterator<NamedBatch> it = p.iterator();
      int b0 = 0;
      NamedBatch first = it.next();
      for (int r = 0; r < 100; r++) {
        b0 += first.get("softmax_label").getInt(r);
      }
      // Each draw is class b with probability 1/2: 100 draws, 4 standard deviations are 20.
      assertTrue(Math.abs(b0 - 50) < 20, "class b drawn " + b0 + " times of 100");
      it.next();
      state = p.saveState();
      third = it.next().sampleIndices();
    }
    try (Hdf5Provider q = spec.get().build()) {
      q.restoreState(dev.minibatch.runtime.IterationState.decode(state.encode()));
      assertArrayEquals(third, q.iterator().next().sampleIndices());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("int/int32"), "a", 1)
        .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("int/int32"), "b").batchSize(0).build());
    assertTrue(e.getMessage().contains("has no sampling probability"), e.getMessage());
  }

  @Test
  void entriesWithOtherSampleShapesAreRejectedNamingFileAndDataset() {
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("float/float32"), "a")
        .add(Hdf5ReaderTest.COMPRESSED, List.of("float/float32"), "b")
        .batchSize(0).build());
    assertTrue(e.getMessage().startsWith(Hdf5ReaderTest.COMPRESSED + ": dataset 'float/float32' has samples of shape [5]"),
        e.getMessage());
  }

  /**
   * Issue 10, defect 5: PAD_CONSTANT padded the label rows with the data padding value. 14 samples
   * (two entries of 7) in batches of 4: the last batch holds 2 samples and 2 constant rows, the data
   * rows -7 and the label rows -3, on the consumer's thread and on reader threads.
   */
  @Test
  void padConstantPadsDataAndLabelsWithTheirOwnConstants() {
    for (int readers : new int[] {0, 2}) {
      try (Hdf5Provider p = Hdf5Provider.builder()
          .add(Hdf5ReaderTest.CHUNKED, List.of("float/float32"), "latest")
          .add(Hdf5ReaderTest.CHUNKED_EARLIEST, List.of("float/float32"), "earliest")
          .names("x").oneHot(true).batchSize(4).lastBatch(dev.minibatch.LastBatch.PAD_CONSTANT)
          .dataPadding(-7).labelPadding(-3).readers(readers).build()) {
        NamedBatch last = null;
        for (NamedBatch b : p) {
          last = b;
        }
        assertEquals(2, last.pad(), readers + " readers");
        for (int r = 2; r < 4; r++) {
          assertEquals(-7.0, last.get("x").getDouble(r, 0, 0), 0.0, readers + " readers, data row " + r);
          assertEquals(-3.0, last.get("softmax_label").getDouble(r, 0), 0.0, readers + " readers, label row " + r);
          assertEquals(-3.0, last.get("softmax_label").getDouble(r, 1), 0.0, readers + " readers, label row " + r);
          assertEquals(-1, last.sampleIndex(r));
        }
        assertEquals(1.0, last.get("softmax_label").getDouble(0, 1), 0.0, "a real row keeps its one-hot label");
      }
    }
  }
}
