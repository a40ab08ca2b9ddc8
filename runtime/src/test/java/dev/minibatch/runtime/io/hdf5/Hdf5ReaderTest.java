package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class Hdf5ReaderTest {
  @TempDir Path dir;

  static final Path TEST_FILE = TestFiles.resource("hdf5/test_file.hdf5");
  static final Path TEST_FILE2 = TestFiles.resource("hdf5/test_file2.hdf5");
  static final Path CHUNKED = TestFiles.resource("hdf5/test_chunked_datasets_latest.hdf5");
  static final Path CHUNKED_EARLIEST = TestFiles.resource("hdf5/test_chunked_datasets_earliest.hdf5");
  static final Path COMPRESSED = TestFiles.resource("hdf5/test_compressed_chunked_datasets_earliest.hdf5");
  static final Path COMPRESSED_LATEST = TestFiles.resource("hdf5/test_compressed_chunked_datasets_latest.hdf5");

  @Test
  void oneDimensionalDatasetsHoldMinus10To10InTheirOwnTypes() {
    for (Path f : List.of(TEST_FILE, TEST_FILE2)) {
      Map<String, INDArray> m = Hdf5Reader.readAll(f, List.of("datasets_group/float/float32",
          "datasets_group/float/float64", "datasets_group/int/int8", "datasets_group/int/int16", "datasets_group/int/int32"));
      DataType[] types = {DataType.FLOAT, DataType.DOUBLE, DataType.INT8, DataType.INT16, DataType.INT32};
      int k = 0;
      for (INDArray a : m.values()) {
        assertEquals(types[k++], a.dataType());
        assertArrayEquals(new long[] {21}, a.shape());
        for (int i = 0; i < 21; i++) {
          assertEquals(i - 10, a.getDouble(i), 0.0, f + " " + a.dataType());
        }
      }
    }
  }

  @Test
  void nDimensionalAndChunkedDatasetsAreArange() {
    INDArray cube = Hdf5Reader.read(TEST_FILE, "nD_Datasets/3D_float32");
    assertArrayEquals(new long[] {2, 5, 100}, cube.shape());
    assertEquals(0.0, cube.getDouble(0, 0, 0));
    assertEquals(523.0, cube.getDouble(1, 0, 23));
    assertEquals(999.0, cube.getDouble(1, 4, 99));
    for (Path f : List.of(CHUNKED, CHUNKED_EARLIEST)) {
      for (String name : List.of("float/float32", "float/float64", "int/int8", "int/int16", "int/int32")) {
        INDArray a = Hdf5Reader.read(f, name);
        assertArrayEquals(new long[] {7, 5, 3}, a.shape(), name);
        INDArray flat = a.reshape(105);
        for (int i = 0; i < 105; i++) {
          assertEquals(i, flat.getDouble(i), 0.0, f + " " + name);
        }
      }
    }
  }

  @Test
  void gzipAndLzfCompressedDatasetsDecode() {
    for (Path f : List.of(COMPRESSED, COMPRESSED_LATEST)) {
      for (String name : List.of("float/float32", "int/int16", "float/float64lzf", "int/int32lzf")) {
        INDArray a = Hdf5Reader.read(f, name);
        assertArrayEquals(new long[] {7, 5}, a.shape(), name);
        assertEquals(34.0, a.getDouble(6, 4), 0.0, f + " " + name);
        assertEquals(12.0, a.getDouble(2, 2), 0.0, f + " " + name);
      }
    }
  }

  @Test
  void missingFileNamesFileAndDatasets() {
    Path f = dir.resolve("absent.h5");
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> Hdf5Reader.read(f, "x/y"));
    assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("x/y"), e.getMessage());
  }

  @Test
  void missingDatasetNamesFileDatasetAndWhatThereIs() {
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> Hdf5Reader.read(CHUNKED, "float/float128"));
    assertTrue(e.getMessage().startsWith(CHUNKED + ": no dataset 'float/float128'"), e.getMessage());
    assertTrue(e.getMessage().contains("float/float16"), e.getMessage());
    e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(CHUNKED, "float"));
    assertTrue(e.getMessage().contains("'float' is a group, not a dataset"), e.getMessage());
  }

  @Test
  void datasetsWithDifferentSampleCountsAreAnError() {
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> Hdf5Reader.readAll(CHUNKED, List.of("int/int8", "int/large_int8")));
    assertEquals(CHUNKED + ": datasets have different sample counts (axis 0): 'int/int8' has 7 samples, "
        + "'int/large_int8' has 100", e.getMessage());
  }

  @Test
  void anUnsupportedCompressionFilterNamesFileAndDataset() throws IOException {
    // Re-label the lzf filter (id 32000) as id 32015, which no HDF5 library registers.
    byte[] b = Files.readAllBytes(COMPRESSED);
    int patched = 0;
    for (int i = 0; i + 11 < b.length; i++) {
      if (b[i] == 0x00 && b[i + 1] == 0x7D && b[i + 8] == 'l' && b[i + 9] == 'z' && b[i + 10] == 'f') {
        b[i] = 0x0F;
        patched++;
      }
    }
    assertEquals(5, patched);
    Path f = dir.resolve("unknown-filter.hdf5");
    Files.write(f, b);
    assertEquals(34.0, Hdf5Reader.read(f, "float/float32").getDouble(6, 4), 0.0);
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(f, "int/int32lzf"));
    assertTrue(e.getMessage().startsWith(f + ": dataset 'int/int32lzf' uses a compression filter that cannot be decoded"),
        e.getMessage());
  }
}
