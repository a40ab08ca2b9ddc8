package dev.minibatch.runtime.io.idx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.internal.io.FileBytes;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.idx.IdxFile.IdxArray;
import dev.minibatch.runtime.io.idx.IdxFile.IdxType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class IdxFileTest {
  @TempDir Path dir;

  private static final Path T10K_IMAGES = TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz");
  private static final Path T10K_LABELS = TestFiles.resource("mnist/t10k-labels-idx1-ubyte.gz");
  private static final Path TRAIN_LABELS = TestFiles.resource("mnist/train-labels-idx1-ubyte.gz");

  @Test
  void mnistTrainLabelsStartWithThePublishedSequenceAndHaveThePublishedHistogram() {
    IdxArray labels = IdxFile.read(TRAIN_LABELS, IdxFile.MNIST_LABELS_MAGIC);
    assertEquals(IdxType.UINT8, labels.type());
    assertArrayEquals(new int[] {60000}, labels.dims());
    int[] all = labels.toIntArray();
    assertArrayEquals(new int[] {5, 0, 4, 1, 9, 2, 1, 3, 1, 4}, Arrays.copyOf(all, 10));
    assertArrayEquals(new int[] {5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}, histogram(all));
  }

  @Test
  void mnistTestLabelsHaveThePublishedHistogram() {
    int[] all = IdxFile.read(T10K_LABELS, IdxFile.MNIST_LABELS_MAGIC).toIntArray();
    assertEquals(10000, all.length);
    assertArrayEquals(new int[] {7, 2, 1, 0, 4, 1, 4, 9, 5, 9}, Arrays.copyOf(all, 10));
    assertArrayEquals(new int[] {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}, histogram(all));
  }

  @Test
  void mnistTestImagesReadBackToTheFilesPublishedChecksum() throws Exception {
    IdxArray images = IdxFile.read(T10K_IMAGES, IdxFile.MNIST_IMAGES_MAGIC);
    assertArrayEquals(new int[] {10000, 28, 28}, images.dims());
    assertEquals(784, images.sampleSize());
    // Rebuild the unzipped file from what was parsed; SOURCES.md gives its sha256.
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update(new byte[] {0, 0, 8, 3, 0, 0, 0x27, 0x10, 0, 0, 0, 28, 0, 0, 0, 28});
    for (long i = 0; i < images.size(); i++) {
      sha.update((byte) images.getDouble(i));
    }
    assertEquals("0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
        HexFormat.of().formatHex(sha.digest()));
    float[] scaled = new float[784];
    images.copyTo(0, 784, scaled, 0, 1f / 255);
    for (int i = 0; i < 784; i++) {
      assertEquals(images.getDouble(i) / 255, scaled[i], 1e-7);
    }
  }

  @Test
  void readsEveryElementTypeRawAndGzipped() throws IOException {
    double[] values = {0, 1, -2, 100, 127, -128};
    for (IdxType type : IdxType.values()) {
      double[] expect = values.clone();
      if (type == IdxType.UINT8) {
        expect = new double[] {0, 1, 254, 100, 127, 128};
      }
      byte[] bytes = idx(type, new int[] {3, 2}, values);
      for (boolean gz : new boolean[] {false, true}) {
        Path file = dir.resolve(type + (gz ? ".gz" : ""));
        Files.write(file, gz ? gzip(bytes) : bytes);
        IdxArray a = IdxFile.read(file, type.magic(2));
        assertEquals(type, a.type());
        assertArrayEquals(new int[] {3, 2}, a.dims());
        assertArrayEquals(expect, a.toDoubleArray(), type + " gz=" + gz);
      }
    }
    Path f = dir.resolve("f32");
    Files.write(f, idx(IdxType.FLOAT32, new int[] {2}, new double[] {0.25, -1.5e-3}));
    assertArrayEquals(new float[] {0.25f, -1.5e-3f}, IdxFile.read(f).toFloatArray(1f));
  }

  @Test
  void decodesEveryElementTypeStraightIntoAnIndArray() throws IOException {
    double[] values = {0, 1, -2, 100, 127, -128};
    for (IdxType type : IdxType.values()) {
      Path file = dir.resolve("nd-" + type);
      Files.write(file, idx(type, new int[] {3, 2}, values));
      IdxArray a = IdxFile.read(file);
      double[] expect = type == IdxType.UINT8 ? new double[] {0, 1, 254, 100, 127, 128} : values;
      INDArray f = a.toFloatINDArray(0.5f, 3, 2);
      assertEquals(DataType.FLOAT, f.dataType());
      assertArrayEquals(new long[] {3, 2}, f.shape());
      for (int i = 0; i < 6; i++) {
        assertEquals((float) expect[i] * 0.5f, f.getFloat(i / 2, i % 2), type.toString());
      }
      if (type == IdxType.FLOAT32 || type == IdxType.FLOAT64) {
        assertThrows(IllegalStateException.class, () -> a.toIntINDArray(6));
      } else {
        INDArray n = a.toIntINDArray(6);
        assertEquals(DataType.INT32, n.dataType());
        for (int i = 0; i < 6; i++) {
          assertEquals((int) expect[i], n.getInt(i), type.toString());
        }
      }
    }
  }

  @Test
  void mnistPixelsDecodedIntoAnIndArrayEqualThePixelsTimesTheScale() {
    IdxArray images = IdxFile.read(T10K_IMAGES, IdxFile.MNIST_IMAGES_MAGIC);
    INDArray x = images.toFloatINDArray(1f / 255, 10000, 784);
    // Image 0 (a 7): row 7 holds its top stroke; pixel (7, 6) is 84 in the published file.
    assertEquals(84 / 255f, x.getFloat(0, 7 * 28 + 6));
    for (long i = 0; i < images.size(); i += 997) {
      assertEquals((float) images.getDouble(i) * (1f / 255), x.getFloat(i / 784, i % 784), "element " + i);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> images.toFloatINDArray(1f, 10000, 28));
    assertTrue(e.getMessage().contains("the file holds 7840000"), e.getMessage());
  }

  @Test
  void multiMemberGzipIsReadWhole() throws IOException {
    byte[] whole = idx(IdxType.UINT8, new int[] {5}, new double[] {1, 2, 3, 4, 5});
    byte[] first = gzip(Arrays.copyOf(whole, 10));
    byte[] second = gzip(Arrays.copyOfRange(whole, 10, whole.length));
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    Path f = dir.resolve("two-members.gz");
    Files.write(f, both);
    assertArrayEquals(whole, FileBytes.readAll(f));
    assertArrayEquals(new double[] {1, 2, 3, 4, 5}, IdxFile.read(f).toDoubleArray());
  }

  @Test
  void wrongMagicNamesFileExpectedAndFound() {
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> IdxFile.read(T10K_LABELS, IdxFile.MNIST_IMAGES_MAGIC));
    assertTrue(e.getMessage().startsWith(T10K_LABELS.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("expected 2051"), e.getMessage());
    assertTrue(e.getMessage().contains("found 2049"), e.getMessage());
  }

  @Test
  void notAnIdxFileIsRejected() throws IOException {
    Path f = dir.resolve("text.idx");
    Files.writeString(f, "hello world\n");
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f));
    assertTrue(e.getMessage().contains("not an idx file"), e.getMessage());
    assertTrue(e.getMessage().contains("0x68656C6C"), e.getMessage());
  }

  @Test
  void truncatedFileNamesDeclaredAndFoundLength() throws IOException {
    byte[] full = FileBytes.readAll(T10K_LABELS);
    Path f = dir.resolve("labels-truncated");
    Files.write(f, Arrays.copyOf(full, 5008));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f, 2049));
    assertTrue(e.getMessage().startsWith(f.toString() + ": truncated"), e.getMessage());
    assertTrue(e.getMessage().contains("10000 uint8 = 10008 bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("found 5008 bytes"), e.getMessage());

    Path g = dir.resolve("labels-long");
    Files.write(g, Arrays.copyOf(full, 10010));
    e = assertThrows(FileFormatException.class, () -> IdxFile.read(g));
    assertTrue(e.getMessage().contains("trailing bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("found 10010 bytes"), e.getMessage());
  }

  @Test
  void truncatedGzipStreamIsAnError() throws IOException {
    byte[] gz = Files.readAllBytes(T10K_LABELS);
    Path f = dir.resolve("cut.gz");
    Files.write(f, Arrays.copyOf(gz, gz.length / 2));
    FileFormatException e = assertThrows(FileFormatException.class, () -> IdxFile.read(f));
    assertTrue(e.getMessage().startsWith(f + ": gzip data is truncated"), e.getMessage());
  }

  @Test
  void missingFileIsAnUncheckedIoErrorNamingIt() {
    Path f = dir.resolve("nope.idx");
    java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, () -> IdxFile.read(f));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
  }

  static int[] histogram(int[] labels) {
    int[] h = new int[10];
    for (int l : labels) {
      h[l]++;
    }
    return h;
  }

  static byte[] idx(IdxType type, int[] dims, double[] values) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(type.magic(dims.length));
    for (int d : dims) {
      out.writeInt(d);
    }
    for (double v : values) {
      switch (type) {
        case UINT8:
        case INT8:
          out.writeByte((int) v);
          break;
        case INT16:
          out.writeShort((int) v);
          break;
        case INT32:
          out.writeInt((int) v);
          break;
        case FLOAT32:
          out.writeFloat((float) v);
          break;
        case FLOAT64:
          out.writeDouble(v);
          break;
        default:
          throw new AssertionError();
      }
    }
    return bytes.toByteArray();
  }

  static byte[] gzip(byte[] raw) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(bytes)) {
      out.write(raw);
    }
    return bytes.toByteArray();
  }
}
