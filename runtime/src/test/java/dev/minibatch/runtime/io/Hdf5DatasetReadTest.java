package dev.minibatch.runtime.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.hdf5.Hdf5Provider;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * docs/file-providers.md: a user reads one HDF5 dataset alone, and lists a file's datasets, through
 * public API (this test sits outside the io.hdf5 package, so it sees only what users see). The
 * files are h5py's test files, whose datasets hold arange values.
 */
class Hdf5DatasetReadTest {
  private static final Path TEST_FILE = TestFiles.resource("hdf5/test_file.hdf5");
  private static final Path CHUNKED = TestFiles.resource("hdf5/test_chunked_datasets_latest.hdf5");

  @Test
  void oneDatasetIsReadWholeInItsOwnType() {
    INDArray cube = Hdf5Provider.read(TEST_FILE, "nD_Datasets/3D_float32");
    assertEquals(DataType.FLOAT, cube.dataType());
    assertArrayEquals(new long[] {2, 5, 100}, cube.shape());
    // arange(1000) in C order: element (i, j, k) is 500 i + 100 j + k.
    assertEquals(523.0, cube.getDouble(1, 0, 23));
    assertEquals(999.0, cube.getDouble(1, 4, 99));
    INDArray int16 = Hdf5Provider.read(TEST_FILE, "datasets_group/int/int16");
    assertEquals(DataType.INT16, int16.dataType());
    assertEquals(-10.0, int16.getDouble(0));
    assertEquals(10.0, int16.getDouble(20));
  }

  @Test
  void theDatasetsOfAFileAreListedByPath() {
    List<String> names = Hdf5Provider.datasets(CHUNKED);
    assertTrue(names.containsAll(List.of("float/float32", "float/float64", "int/int8", "int/int16", "int/int32")),
        names.toString());
    assertTrue(names.stream().noneMatch(n -> n.startsWith("/") || n.equals("float") || n.equals("int")), names.toString());
  }

  @Test
  void aMissingDatasetNamesTheFileAndWhatItHolds() {
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Provider.read(CHUNKED, "float/float128"));
    assertTrue(e.getMessage().startsWith(CHUNKED + ": no dataset 'float/float128'"), e.getMessage());
    assertTrue(e.getMessage().contains("int/int32"), e.getMessage());
  }
}
