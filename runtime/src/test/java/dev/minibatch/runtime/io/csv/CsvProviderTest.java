package dev.minibatch.runtime.io.csv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shape.Shape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvProviderTest {
  @TempDir Path dir;

  @Test
  void chunksParsedInParallelLandInTheProviderInFileOrder() {
    Path optdigits = dev.minibatch.runtime.io.TestFiles.resource("csv/optdigits.tes");
    CsvTable seq = CsvParser.parse(optdigits, CsvFormat.builder().labelColumn(-1).threads(1).build());
    for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
      try (CsvProvider p = CsvProvider.builder().dataFile(optdigits).dataShape(8, 8)
          .format(f -> f.labelColumn(-1).dtype(dtype).threads(5).minBlockBytes(2000)).batchSize(1797).build()) {
        NamedBatch b = p.iterator().next();
        org.nd4j.linalg.api.ndarray.INDArray x = b.get("data");
        assertEquals(dev.minibatch.runtime.spi.DTypes.toNd4j(dtype), x.dataType());
        assertArrayEquals(new long[] {1797, 8, 8}, x.shape());
        for (int r = 0; r < 1797; r += 7) {
          for (int k = 0; k < 64; k += 3) {
            assertEquals(seq.data().getDouble(r * 64 + k), x.getDouble(r, k / 8, k % 8), dtype + " row " + r);
          }
          assertEquals(seq.labels().getDouble(r), b.get("softmax_label").getDouble(r));
        }
        // The last row of optdigits.tes is a 8 (scikit-learn's digits, last sample).
        assertEquals(8, b.get("softmax_label").getInt(1796));
      }
    }
  }

  /**
   * The parsed blocks are the provider's rows: shuffled batches drawn across the blocks keep each
   * sample's values and label together, and every sample comes once per epoch, for every dtype.
   */
  @Test
  void shuffledBatchesAcrossParsedBlocksKeepEachRowWhole() throws IOException {
    StringBuilder sb = new StringBuilder();
    int n = 500;
    for (int i = 0; i < n; i++) {
      sb.append(i).append(',').append(3 * i).append(',').append(i % 5).append('\n');
    }
    Path f = dir.resolve("rows.csv");
    Files.writeString(f, sb);
    for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
      try (CsvProvider p = CsvProvider.builder().dataFile(f).dataShape(2)
          .format(x -> x.labelColumn(2).dtype(dtype).threads(4).minBlockBytes(500))
          .batchSize(16).shuffle(true).seed(7).build()) {
        boolean[] seen = new boolean[n];
        boolean shuffled = false;
        int position = 0;
        for (NamedBatch b : p) {
          for (int r = 0; r < b.countSamples() - b.pad(); r++, position++) {
            int i = (int) b.get("data").getDouble(r, 0);
            assertEquals(3.0 * i, b.get("data").getDouble(r, 1), dtype + " sample " + i);
            assertEquals(i % 5, b.get("softmax_label").getDouble(r), dtype + " sample " + i);
            assertTrue(!seen[i], "sample " + i + " twice");
            seen[i] = true;
            shuffled |= i != position;
          }
        }
        assertEquals(n, position);
        assertTrue(shuffled);
        // One sample at a time, as the file has it.
        int i = 0;
        for (dev.minibatch.runtime.io.SampleProcessor.Sample s : p.samples()) {
          assertEquals(3.0 * i, s.arrays().get(0).getDouble(1));
          assertEquals(i % 5, s.arrays().get(1).getDouble(0));
          i++;
        }
        assertEquals(n, i);
      }
    }
  }

  @Test
  void irisWithClassNamesRoundBatchPadsByWrapping() {
    try (CsvProvider p = CsvProvider.builder().dataFile(CsvParserTest.IRIS)
        .format(f -> f.header(true).labelColumn(4).classLabels(true))
        .dataShape(2, 2).batchSize(40).roundBatch(true).build()) {
      assertEquals(List.of("setosa", "versicolor", "virginica"), p.classNames());
      assertEquals(Shape.of(40, 2, 2), p.provideData().get(0).shape());
      List<Integer> pads = new ArrayList<>();
      float[] counts = new float[3];
      for (NamedBatch b : p) {
        pads.add(b.pad());
        for (int i = 0; i < b.countSamples(); i++) {
          counts[(int) b.get("softmax_label").getFloat(i)]++;
        }
      }
      assertEquals(List.of(0, 0, 0, 10), pads);
      assertArrayEquals(new float[] {50, 50, 50}, counts);
      assertArrayEquals(new float[] {5.1f, 3.5f, 1.4f, 0.2f}, p.sample(0).get("data").reshape(4).toFloatVector());
    }
  }

  @Test
  void labelFileRowsMustMatchAndNoLabelsMeansZeros() throws IOException {
    Path data = dir.resolve("x.csv");
    Path labels = dir.resolve("y.csv");
    Files.writeString(data, "1,2\n3,4\n5,6\n");
    Files.writeString(labels, "10,11\n12,13\n14,15\n");
    try (CsvProvider p = CsvProvider.builder().dataFile(data).dataShape(2).labelFile(labels).labelShape(2)
        .format(f -> f.dtype(DType.INT64)).batchSize(3).build()) {
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new long[] {10, 11, 12, 13, 14, 15}, b.get("softmax_label").reshape(6).toLongVector());
      assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6}, b.get("data").reshape(6).toLongVector());
    }
    try (CsvProvider p = CsvProvider.builder().dataFile(data).dataShape(2).batchSize(3).build()) {
      assertEquals(0.0, p.iterator().next().get("softmax_label").sumNumber().doubleValue());
    }
    Files.writeString(labels, "10,11\n12,13\n");
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> CsvProvider.builder().dataFile(data).dataShape(2).labelFile(labels).labelShape(2).batchSize(0).build());
    assertEquals(labels + ": has 2 label rows but " + data + " has 3 data rows; they must be equal", e.getMessage());
  }

  @Test
  void aDirectoryIsReadInNameOrderAndRowsMustHoldTheDataShape() throws IOException {
    Path d = Files.createDirectory(dir.resolve("parts"));
    Files.writeString(d.resolve("b.csv"), "3,4\n");
    Files.writeString(d.resolve("a.csv"), "1,2\n");
    try (CsvProvider p = CsvProvider.builder().dataFile(d).dataShape(2).batchSize(2).build()) {
      assertArrayEquals(new float[] {1, 2, 3, 4}, p.iterator().next().get("data").reshape(4).toFloatVector());
    }
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> CsvProvider.builder().dataFile(d).dataShape(3).batchSize(0).build());
    assertEquals(d.resolve("a.csv") + ":1: row has 2 fields, expected 3 (dataShape(3) = 3 values)", e.getMessage());
  }

  /**
   * Issue 10, defect 7: MXNet's round_batch pads the last batch with the next epoch's first rows
   * and starts that epoch after them (iter_batchloader.h: BeforeFirst does not rewind while there is
   * overflow); roundBatch(true) used to restart every epoch at row 0.
   */
  @Test
  void roundBatchContinuesTheNextEpochAfterTheRowsItWrapped() throws IOException {
    Path data = dir.resolve("ten.csv");
    StringBuilder rows = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      rows.append(i).append('\n');
    }
    Files.writeString(data, rows);
    try (CsvProvider p = CsvProvider.builder().dataFile(data).dataShape(1).batchSize(3).roundBatch(true).build()) {
      assertEquals(List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7, 8), List.of(9, 0, 1)), epoch(p));
      assertEquals(List.of(List.of(2, 3, 4), List.of(5, 6, 7), List.of(8, 9, 0)), epoch(p));
      assertEquals(List.of(List.of(1, 2, 3), List.of(4, 5, 6), List.of(7, 8, 9)), epoch(p));
    }
    try (CsvProvider p = CsvProvider.builder().dataFile(data).dataShape(1).batchSize(3).roundBatch(false).build()) {
      NamedBatch last = null;
      for (NamedBatch b : p) {
        last = b;
      }
      assertEquals(2, last.pad(), "round_batch = false keeps the partial batch, padded");
      assertArrayEquals(new float[] {9, 0, 0}, last.get("data").reshape(3).toFloatVector());
    }
  }

  /** The values of each batch's rows (the row values are the row numbers), with the pad rows last. */
  private static List<List<Integer>> epoch(CsvProvider p) {
    List<List<Integer>> out = new ArrayList<>();
    for (NamedBatch b : p) {
      List<Integer> ids = new ArrayList<>();
      float[] v = b.get("data").reshape(b.rows()).toFloatVector();
      for (int r = 0; r < b.rows(); r++) {
        ids.add((int) v[r]);
        assertEquals(ids.get(r), (int) b.sampleIndex(r), "sampleIndex agrees with the row");
      }
      out.add(ids);
    }
    return out;
  }

  /** Issue 14: no data shape was a NullPointerException; a wrong field count did not say where "expected" came from. */
  @Test
  void aMissingDataShapeAndAWrongFieldCountSayWhatToDo() throws IOException {
    Path data = dir.resolve("five.csv");
    Files.writeString(data, "1,2,3,4,5\n6,7,8,9,10\n");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> CsvProvider.builder().dataFile(data).batchSize(2).build());
    assertTrue(e.getMessage().startsWith("CsvProvider: no data shape: call dataShape(dims)"), e.getMessage());
    FileFormatException f = assertThrows(FileFormatException.class,
        () -> CsvProvider.builder().dataFile(data).dataShape(5).format(c -> c.labelColumn(-1)).batchSize(2).build());
    assertEquals(data + ":1: row has 5 fields, expected 6 (dataShape(5) = 5 values + 1 label column)", f.getMessage());
  }
}
