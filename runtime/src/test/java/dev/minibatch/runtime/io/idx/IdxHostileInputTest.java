package dev.minibatch.runtime.io.idx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import dev.minibatch.runtime.internal.io.FileBytes;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.mnist.MnistProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed idx and gzip files, one class of defect each: every one ends in a {@link
 * FileFormatException} whose message starts with the file and names the field at fault, and a tiny
 * file costs a few MiB at most.
 */
class IdxHostileInputTest {
  static final Path LABELS = TestFiles.resource("mnist/t10k-labels-idx1-ubyte.gz");
  private static final long FEW_MIB = 4L << 20;
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  @TempDir Path dir;

  @Test
  void aZeroSampleCountIsNamedAtTheProviderNotAnIllegalArgument() throws IOException {
    Path images = write("images", idx(2051, 0, 28, 28));
    Path labels = write("labels", idx(2049, 0));
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> MnistProvider.builder().image(images).label(labels).build());
    assertNames(e, images, "holds no samples", "axis 0");
  }

  @Test
  void aZeroImageExtentIsNamedWithItsAxisAndHeaderOffset() throws IOException {
    Path images = write("images", idx(2051, 3, 0, 28));
    Path labels = write("labels", withBytes(idx(2049, 3), 3));
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> MnistProvider.builder().image(images).label(labels).flat(true).build());
    assertNames(e, images, "axis 1 has extent 0", "header offset 8");
  }

  @Test
  void extentsWhosePerSampleCountOverflowsAnIntAreRejectedEvenWithNoSamples() throws IOException {
    // 0 samples of 65536 x 65536: the total is 0, the per-sample count 2^32 does not fit an int.
    Path f = write("overflow", idx(2051, 0, 65536, 65536));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f));
    assertNames(e, f, "elements per sample", "0 x 65536 x 65536");
  }

  @Test
  void extentsWhoseTotalOverflowsAnIntAreRejected() throws IOException {
    Path f = write("overflow", idx(2051, 65536, 65536, 1));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f));
    assertNames(e, f, "65536 x 65536 x 1", "4294967296 elements");
  }

  @Test
  void aNegativeExtentIsNamedWithItsAxis() throws IOException {
    Path f = write("negative", idx(2049, -1));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f));
    assertNames(e, f, "axis 0 has a negative extent -1", "header offset 4");
  }

  @Test
  void hugeExtentsInATinyRawFileFailWithoutAllocating() throws IOException {
    byte[] header = idx(2051, 2_000_000_000, 1, 1);
    Path f = write("tiny", Arrays.copyOf(header, 20));
    FileFormatException e = assertThrows(FileFormatException.class, () -> within(FEW_MIB, () -> IdxFile.read(f)));
    assertNames(e, f, "truncated", "2000000000 x 1 x 1 uint8");
  }

  @Test
  void hugeExtentsInATinyGzipFileWhoseTrailerLiesFailBeforeAllocating() throws IOException {
    // A valid gzip member of a 16-byte header declaring 2e9 images, its trailer claiming 4 GiB - 1.
    byte[] gz = gzip(idx(2051, 2_000_000_000, 1, 1));
    Arrays.fill(gz, gz.length - 4, gz.length, (byte) 0xff);
    Path f = write("tiny.gz", gz);
    FileFormatException e = assertThrows(FileFormatException.class, () -> within(FEW_MIB, () -> IdxFile.read(f)));
    assertNames(e, f, "2000000000 x 1 x 1 uint8", "more than the " + gz.length + "-byte gzip file can hold");
  }

  @Test
  void aLyingTrailerSizeCostsNoMoreThanTheContent() throws IOException {
    byte[] content = idx(2049, 3);
    byte[] gz = gzip(withBytes(content, 3));
    Arrays.fill(gz, gz.length - 4, gz.length, (byte) 0x7f);
    Path f = write("lying.gz", gz);
    // The checksum still holds, the size does not: the stream's own check reports it.
    FileFormatException e = assertThrows(FileFormatException.class, () -> within(FEW_MIB, () -> FileBytes.readAll(f)));
    assertNames(e, f, "corrupt gzip data", "decompressed offset");
  }

  @Test
  void corruptDeflateDataIsNamedWithTheDecompressedOffset() throws IOException {
    byte[] gz = Files.readAllBytes(LABELS);
    for (int i = 200; i < 260; i++) {
      gz[i] ^= (byte) 0x5a;
    }
    Path f = write("corrupt.gz", gz);
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f, IdxFile.MNIST_LABELS_MAGIC));
    assertNames(e, f, "gzip data", "decompressed offset");
  }

  @Test
  void aTruncatedGzipStreamEndsInAnErrorNotAHang() throws IOException {
    byte[] gz = Files.readAllBytes(LABELS);
    Path f = write("truncated.gz", Arrays.copyOf(gz, gz.length / 2));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f, IdxFile.MNIST_LABELS_MAGIC));
    assertNames(e, f, "gzip data is truncated", "decompressed offset");
    e = assertThrows(FileFormatException.class, () -> FileBytes.readAll(f));
    assertNames(e, f, "gzip data is truncated", "decompressed offset");
  }

  @Test
  void aGzipWithTrailingIdxBytesIsNamedWithBothLengths() throws IOException {
    Path f = write("trailing.gz", gzip(withBytes(idx(2049, 3), 5)));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f));
    assertNames(e, f, "has trailing bytes", "found 13 bytes");
  }

  @Test
  void theRealFileStillReadsAfterTheChecks() {
    assertArrayEquals(new int[] {10000}, IdxFile.read(LABELS, IdxFile.MNIST_LABELS_MAGIC).dims());
  }

  /** An idx header with {@code magic} and {@code dims}. */
  static byte[] idx(int magic, int... dims) {
    ByteBuffer b = ByteBuffer.allocate(4 + 4 * dims.length).putInt(magic);
    for (int d : dims) {
      b.putInt(d);
    }
    return b.array();
  }

  /** {@code header} followed by {@code n} bytes of value 1. */
  static byte[] withBytes(byte[] header, int n) {
    byte[] out = Arrays.copyOf(header, header.length + n);
    Arrays.fill(out, header.length, out.length, (byte) 1);
    return out;
  }

  static byte[] gzip(byte[] content) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(content);
    }
    return out.toByteArray();
  }

  private Path write(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }

  /** Runs {@code read}, asserting that it allocates at most {@code bytes} on this thread. */
  private static void within(long bytes, Supplier<?> read) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      read.get();
    } finally {
      long used = THREADS.getCurrentThreadAllocatedBytes() - before;
      assertTrue(used <= bytes, "allocated " + used + " bytes");
    }
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
