package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.TestFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed HDF5 files, one class of defect each, made by patching h5py's test_file.hdf5 (earliest
 * format: no checksums, so a patch is read as written): every one ends in a {@link
 * FileFormatException} whose message starts with the file and names the dataset or path at fault,
 * without hanging and without allocating what the file cannot hold.
 */
class Hdf5HostileInputTest {
  static final Path TEST_FILE = TestFiles.resource("hdf5/test_file.hdf5");
  /** The extents of nD_Datasets/3D_float32 (contiguous float32), in a version 1 dataspace of rank 3. */
  private static final long[] CUBE = {2, 5, 100};

  @TempDir Path dir;

  @Test
  void aCycleOfSoftLinksEndsInAnErrorNamingThePath() throws IOException {
    byte[] b = Files.readAllBytes(TEST_FILE);
    // soft_link_to_int8 -> soft_link_to_group -> soft_link_to_int8, both relative to links_group; same lengths.
    assertEquals(2, replace(b, "/datasets_group/int/int8", "././//soft_link_to_group"));
    assertEquals(2, replace(b, "/datasets_group/int\0", "./soft_link_to_int8\0"));
    Path f = write("cycle.hdf5", b);
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> assertTimeoutPreemptively(Duration.ofSeconds(20), () -> Hdf5Reader.read(f, "links_group/soft_link_to_int8")));
    assertNames(e, f, "path 'links_group/soft_link_to_int8'", "more than 16 soft links", "cycle");
    // The file's other datasets stay readable.
    assertEquals(21, Hdf5Reader.read(f, "datasets_group/int/int8").length());
  }

  @Test
  void anIntactSoftLinkIsStillFollowed() {
    assertEquals(-10, Hdf5Reader.read(TEST_FILE, "links_group/soft_link_to_int8").getInt(0));
    assertEquals(21, Hdf5Reader.read(TEST_FILE, "links_group/soft_link_to_group/int16").length());
  }

  @Test
  void anExternalLinkIsRefusedByName() {
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> Hdf5Reader.read(TEST_FILE, "links_group/external_link"));
    assertNames(e, TEST_FILE, "'/links_group/external_link' is an external link", "test_file_ext.hdf5");
  }

  @Test
  void hugeDeclaredExtentsInASmallFileFailBeforeReading() throws IOException {
    Path f = write("huge.hdf5", cubeWithExtent0(1 << 20));
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(f, "nD_Datasets/3D_float32"));
    assertNames(e, f, "dataset 'nD_Datasets/3D_float32'", "[1048576, 5, 100]", "2097152000 bytes",
        "more than the " + Files.size(f) + "-byte file holds");
  }

  @Test
  void extentsWhoseElementCountOverflowsAreRejected() throws IOException {
    Path f = write("overflow.hdf5", cubeWithExtent0(1L << 40));
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(f, "nD_Datasets/3D_float32"));
    assertNames(e, f, "dataset 'nD_Datasets/3D_float32'", "[1099511627776, 5, 100]", "more than 2147483639 elements");
  }

  @Test
  void aZeroSampleExtentIsNamedAtTheReaderAndTheProvider() throws IOException {
    Path f = write("empty.hdf5", cubeWithExtent0(0));
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(f, "nD_Datasets/3D_float32"));
    assertNames(e, f, "dataset 'nD_Datasets/3D_float32'", "axis 0 has extent 0", "holds no samples");
    e = assertThrows(FileFormatException.class,
        () -> Hdf5Provider.builder().add(f, List.of("nD_Datasets/3D_float32"), "a").batchSize(2).build());
    assertNames(e, f, "dataset 'nD_Datasets/3D_float32'", "holds no samples");
  }

  @Test
  void entriesWhoseElementTypesDifferAreNamedNotLeftToNd4jsConcat() throws IOException {
    Path other = write("other.hdf5", Files.readAllBytes(TEST_FILE));
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Provider.builder()
        .add(TEST_FILE, List.of("datasets_group/float/float32"), "a")
        .add(other, List.of("datasets_group/int/int16"), "b").names("x").batchSize(4).build());
    assertNames(e, other, "dataset 'datasets_group/int/int16' holds INT16 elements", "'x' holds FLOAT32");
  }

  @Test
  void aTruncatedFileGivesANamedErrorWithJhdfsFailureAsTheCause() throws IOException {
    Path f = write("truncated.hdf5", Arrays.copyOf(Files.readAllBytes(TEST_FILE), 2048));
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(f, "nD_Datasets/3D_float32"));
    assertNames(e, f, "nD_Datasets/3D_float32");
    assertNotNull(e.getCause(), "jhdf's failure is kept as the cause");
    assertTrue(!(e.getCause() instanceof FileFormatException), e.getCause().toString());
  }

  @Test
  void bytesThatAreNotHdf5AreNamed() throws IOException {
    Path f = write("noise.hdf5", "twenty bytes, no HDF".getBytes(StandardCharsets.US_ASCII));
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(f, "x"));
    assertNames(e, f, "superblock");
    e = assertThrows(FileFormatException.class, () -> Hdf5Reader.datasets(f));
    assertNames(e, f, "superblock");
  }

  @Test
  void aDirectoryIsNotReadAsAFile() {
    FileFormatException e = assertThrows(FileFormatException.class, () -> Hdf5Reader.read(dir, "x"));
    assertNames(e, dir, "not a regular file");
  }

  /** test_file.hdf5 with the extent of axis 0 of nD_Datasets/3D_float32 set to {@code extent}. */
  private static byte[] cubeWithExtent0(long extent) throws IOException {
    byte[] b = Files.readAllBytes(TEST_FILE);
    ByteBuffer want = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    for (long d : CUBE) {
      want.putLong(d);
    }
    int at = indexOf(b, want.array());
    assertTrue(at >= 4 && b[at - 8] == 1 && b[at - 7] == 3, "the rank-3 dataspace of the cube at " + at);
    // The maximum extents follow the extents; both say 2 x 5 x 100, and both are patched.
    assertEquals(23, indexOf(Arrays.copyOfRange(b, at + 1, b.length), want.array()), "the maximum extents follow");
    ByteBuffer.wrap(b, at, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(extent);
    ByteBuffer.wrap(b, at + 24, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(extent);
    return b;
  }

  private Path write(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }

  /** Replaces every occurrence of {@code from} with {@code to} (of the same length); returns the count. */
  private static int replace(byte[] b, String from, String to) {
    byte[] f = from.getBytes(StandardCharsets.US_ASCII);
    byte[] t = to.getBytes(StandardCharsets.US_ASCII);
    assertEquals(f.length, t.length);
    int n = 0;
    for (int i = indexOf(b, f); i >= 0; i = indexOf(b, f)) {
      System.arraycopy(t, 0, b, i, t.length);
      n++;
    }
    return n;
  }

  private static int indexOf(byte[] b, byte[] pattern) {
    outer:
    for (int i = 0; i + pattern.length <= b.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (b[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** The message starts with the file and names every one of {@code fields}. */
  static void assertNames(FileFormatException e, Path file, String... fields) {
    assertEquals(file.toString(), e.file());
    assertTrue(e.getMessage().startsWith(file + ": "), e.getMessage());
    for (String field : fields) {
      assertTrue(e.getMessage().contains(field), "'" + field + "' not in: " + e.getMessage());
    }
  }
}
