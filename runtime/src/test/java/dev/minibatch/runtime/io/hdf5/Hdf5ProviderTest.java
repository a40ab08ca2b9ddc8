package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
        .skip(1).max(2)
        .filter("b", s -> s.get("int/int32").getDouble(0, 0) % 30 == 0)
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
  void entriesWithOtherSampleShapesAreRejectedNamingFileAndDataset() {
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Provider.builder()
        .add(Hdf5ReaderTest.CHUNKED, List.of("float/float32"), "a")
        .add(Hdf5ReaderTest.COMPRESSED, List.of("float/float32"), "b")
        .build());
    assertTrue(e.getMessage().startsWith(Hdf5ReaderTest.COMPRESSED + ": dataset 'float/float32' has samples of shape [5]"),
        e.getMessage());
  }
}
