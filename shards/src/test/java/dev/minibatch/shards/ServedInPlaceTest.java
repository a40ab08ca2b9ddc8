package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Files as {@link ShardWriter} writes them are served from their own bytes ({@link PagesInPlace}):
 * each sample is found where its page puts it, fixed-size, variable and encoded-image columns alike, and checked
 * against the values written (known from the sample's id); a header that does not fit is named by
 * its rows, column and page; a buffer a batch still copies from is not read into again.
 */
class ServedInPlaceTest {
  /** Floats per sample: 16 KiB a row, so that a file of 300 rows spans several pages of ~1 MiB. */
  private static final int WIDTH = 4096;

  @TempDir
  static Path dir;

  /** Sample {@code id}: data element {@code j} = {@code id * WIDTH + j} (exact in float32), label {@code id % 7}. */
  private static String writeWide(String name, ShardWriter.Compression compression) {
    int n = 900;
    float[][] x = new float[n][WIDTH];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < WIDTH; j++) {
        x[i][j] = i * WIDTH + j;
      }
      y[i] = i % 7;
    }
    String set = dir.resolve(name).toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(x))
        .label("y", Nd4j.createFromArray(y)).batchSize(64).build()) {
      ShardWriter.builder().samplesPerFile(300).compression(compression).build().write(source, set);
    }
    return set;
  }

  private static ShardIndex index(String set) {
    try (ShardStore s = ShardStore.open(set, new Configuration())) {
      return ShardIndex.read(s);
    }
  }

  private static byte[] bytes(String set, ShardIndex.Entry e) throws IOException {
    return Files.readAllBytes(Path.of(set, e.name()));
  }

  private static void assertWideValues(ShardFile.Decoded d, ShardIndex.Entry e, String what) {
    ByteBuffer x = d.data(0).duplicate().order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer y = d.data(1).duplicate().order(ByteOrder.LITTLE_ENDIAN);
    for (int r = 0; r < e.samples(); r++) {
      long id = e.first() + r;
      int at = d.at(0, r, WIDTH * 4);
      for (int j = 0; j < WIDTH; j += 511) {
        assertEquals(id * WIDTH + j, x.getFloat(at + 4 * j), what + ": sample " + id + ", element " + j);
      }
      assertEquals(id * WIDTH + WIDTH - 1, x.getFloat(at + 4 * (WIDTH - 1)), what + ": sample " + id + ", last element");
      assertEquals(id % 7, y.getInt(d.at(1, r, 4)), what + ": label of sample " + id);
    }
  }

  @Test
  void aFileAsTheWriterWritesItIsServedFromItsOwnBytesPageByPage() throws IOException {
    String set = writeWide("wide", ShardWriter.Compression.NONE);
    ShardIndex index = index(set);
    for (ShardIndex.Entry e : index.files()) {
      byte[] file = bytes(set, e);
      ShardFile.Decoded d = ShardFile.decode(file, e, index.columns(), e.name());
      assertTrue(d.inPlace(), e.name() + " is served in place");
      assertSame(file, d.data(0).array(), "the samples are read from the file's own bytes");
      assertWideValues(d, e, e.name());
      // Rows of one page lie back to back; between two pages lies a page header.
      int gaps = 0;
      for (int r = 1; r < e.samples(); r++) {
        int step = d.at(0, r, WIDTH * 4) - d.at(0, r - 1, WIDTH * 4);
        if (step != WIDTH * 4) {
          gaps++;
          assertTrue(step > WIDTH * 4 && step < WIDTH * 4 + 200, "a page header of " + (step - WIDTH * 4) + " bytes");
        }
      }
      assertTrue(gaps >= 2, e.name() + " spans several pages: " + gaps + " headers between its rows");
    }
  }

  @Test
  void compressedPagesDecodeIntoArraysOfTheirOwnWithTheSameValues() throws IOException {
    String set = writeWide("snappy", ShardWriter.Compression.SNAPPY);
    ShardIndex index = index(set);
    for (ShardIndex.Entry e : index.files()) {
      ShardFile.Decoded d = ShardFile.decode(bytes(set, e), e, index.columns(), e.name());
      assertFalse(d.inPlace(), e.name() + " has compressed pages: decoded, not served in place");
      assertWideValues(d, e, e.name());
    }
  }

  @Test
  void variableColumnsAreServedInPlaceValueByValue() throws IOException {
    String set = dir.resolve("ragged").toString();
    try (Ragged r = Ragged.builder(300).batchSize(32).lastBatch(LastBatch.PARTIAL).build()) {
      ShardWriter.builder().samplesPerFile(64).build().write(r, set);
    }
    ShardIndex index = index(set);
    List<Column> columns = index.columns();
    int tokens = columns.stream().map(Column::name).toList().indexOf("tokens");
    for (ShardIndex.Entry e : index.files()) {
      ShardFile.Decoded d = ShardFile.decode(bytes(set, e), e, columns, e.name());
      assertTrue(d.inPlace(), e.name() + " is served in place");
      ByteBuffer b = d.data(tokens).duplicate().order(ByteOrder.LITTLE_ENDIAN);
      for (int r = 0; r < e.samples(); r++) {
        int id = (int) (e.first() + r);
        assertEquals(Ragged.tokens(id), d.steps(tokens, r, 4), "steps of sample " + id);
        int at = d.at(tokens, r, 0);
        for (int t = 0; t < Ragged.tokens(id); t++) {
          assertEquals(id * 100 + t, b.getInt(at + 4 * t), "sample " + id + ", step " + t);
        }
      }
    }
  }

  @Test
  void columnsThatCannotBeServedInPlaceAreDecodedBesideThoseThatAre() throws IOException {
    String set = dir.resolve("scalars").toString();
    try (ArrayDataProvider source = ScalarsFixture.provider()) {
      ShardWriter.builder().samplesPerFile(5).build().write(source, set);
    }
    ShardIndex index = index(set);
    List<String> names = index.columns().stream().map(Column::name).toList();
    int x = names.indexOf("x");
    int label = names.indexOf("label");
    int small = names.indexOf("small");
    int byte8 = names.indexOf("byte8");
    for (ShardIndex.Entry e : index.files()) {
      byte[] file = bytes(set, e);
      ShardFile.Decoded d = ShardFile.decode(file, e, index.columns(), e.name());
      assertTrue(d.inPlace(), e.name() + " keeps its bytes for the columns served in place");
      assertSame(file, d.data(x).array(), "x (float32 [2]) is read from the file's own bytes");
      assertSame(file, d.data(label).array(), "label (int32, stored as INT32) too");
      assertNotSame(file, d.data(small).array(), "small (int8, stored as INT32) is decoded into an array");
      ByteBuffer xs = d.data(x).duplicate().order(ByteOrder.LITTLE_ENDIAN);
      ByteBuffer labels = d.data(label).duplicate().order(ByteOrder.LITTLE_ENDIAN);
      for (int r = 0; r < e.samples(); r++) {
        int i = (int) (e.first() + r);
        assertEquals(i, xs.getFloat(d.at(x, r, 8)), "x[0] of sample " + i);
        assertEquals(-i, xs.getFloat(d.at(x, r, 8) + 4), "x[1] of sample " + i);
        assertEquals(i % 3, labels.getInt(d.at(label, r, 4)), "label of sample " + i);
        assertEquals((byte) (i - 6), d.data(small).get(d.at(small, r, 1)), "small of sample " + i);
        assertEquals(250 - i, d.data(byte8).get(d.at(byte8, r, 1)) & 0xff, "byte8 of sample " + i);
      }
    }
  }

  @Test
  void aPageHeaderThatDoesNotParseIsNamedByItsRowsColumnAndPage() throws IOException {
    String set = writeWide("damaged", ShardWriter.Compression.NONE);
    ShardIndex index = index(set);
    ShardIndex.Entry e = index.files().get(1);
    byte[] file = bytes(set, e);
    long chunk;
    try (ParquetFileReader r = ParquetFileReader.open(new BytesInputFile(file))) {
      chunk = r.getFooter().getBlocks().get(0).getColumns().get(0).getStartingPos();
    }
    for (int i = 0; i < 4; i++) {
      file[(int) chunk + i] = (byte) 0xff;
    }
    // Trusted bytes (a disk cache's copy): no checksum says they changed, the header itself does.
    FileFormatException failure = assertThrows(FileFormatException.class,
        () -> ShardFile.decode(ByteBuffer.wrap(file), e, index.columns(), "part-x", true));
    String m = failure.getMessage();
    assertTrue(m.startsWith("part-x: rows " + e.first() + " to "), m);
    assertTrue(m.contains("column 'x'") && m.contains("page 0 at offset " + chunk) && m.contains("no readable header"), m);
  }

  @Test
  void aLocalFileIsSummedOnceAndAgainOnlyOnceItChanged() throws IOException {
    String set = IdSamples.write(dir, "changing", 0, 400, 100);
    Path third = Path.of(set, "part-00002.parquet");
    // One file held at a time, read in order: every epoch maps every file again.
    try (ShardProvider p = ShardProvider.builder(set).batchSize(50).cacheFiles(1).readAhead(0).build()) {
      assertEquals(400, count(p), "epoch 0");
      assertEquals(4, p.fileLoads());
      assertEquals(400, count(p), "epoch 1: the files are mapped again, unchanged, and not summed again");
      assertEquals(8, p.fileLoads());
      // A byte of a value changed in place: the file's time of change moves, so its next load sums it.
      try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(third.toFile(), "rw")) {
        long at = f.length() / 3;
        f.seek(at);
        int b = f.read();
        f.seek(at);
        f.write(b ^ 0x5a);
      }
      FileFormatException failure = assertThrows(FileFormatException.class, () -> count(p));
      assertTrue(failure.getMessage().contains("part-00002.parquet: its CRC-32C is "), failure.getMessage());
    }
  }

  @Test
  void aMappedFileCutShortIsAFailureNamingItNotACrash() throws IOException {
    String set = writeWide("cut", ShardWriter.Compression.NONE);
    Path first = Path.of(set, "part-00000.parquet");
    // The checksum of a mapping whose file was cut: the JVM's error, not a fault that ends the JVM.
    Path copy = dir.resolve("cut-copy.parquet");
    Files.copy(first, copy);
    ShardStore.Mapped m = java.util.Objects.requireNonNull(ShardStore.mapIfLength(copy, (int) Files.size(copy)));
    try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(copy, java.nio.file.StandardOpenOption.WRITE)) {
      c.truncate(4096);
    }
    // The JVM raises the error for a fault in compiled code a little later (at its next check for it,
    // as a call into the JVM): the yield is one.
    assertThrows(InternalError.class, () -> {
      ShardFile.crc32c(m.bytes());
      Thread.yield();
    });
    m.unmap();
    // A file cut while batches copy from its mapping: reading fails, naming the file where the JVM
    // raises its error within the batch's write, else with the JVM's error itself (raised a little
    // later, at the thread's next check for it); the JVM goes on.
    try (ShardProvider p = ShardProvider.builder(set).batchSize(10).readAhead(0).build()) {
      java.util.Iterator<dev.minibatch.runtime.NamedBatch> it = p.iterator();
      assertEquals(0f, it.next().data().get(0).getFloat(0, 0), "sample 0, element 0");
      try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(first, java.nio.file.StandardOpenOption.WRITE)) {
        c.truncate(4096);
      }
      Throwable e = null;
      try {
        for (int b = 0; b < 90 && it.hasNext(); b++) {
          it.next();
        }
      } catch (InternalError | RuntimeException failure) {
        e = failure;
      }
      assertTrue(e != null, "reading a file cut under its mapping fails");
      Throwable cause = e;
      while (!(cause instanceof FileFormatException || cause instanceof InternalError) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertTrue(cause instanceof InternalError || cause.getMessage().contains("part-00000.parquet")
          && cause.getMessage().contains("cut or rewritten in place"), String.valueOf(cause));
    }
  }

  private static int count(ShardProvider p) {
    int n = 0;
    for (dev.minibatch.runtime.NamedBatch b : p) {
      n += b.rows();
    }
    return n;
  }

  @Test
  void aBufferABatchStillCopiesFromIsNotReadIntoAgain() throws IOException {
    String set = IdSamples.write(dir, "ids", 0, 40, 40);
    ShardIndex index = index(set);
    ShardIndex.Entry e = index.files().get(0);
    byte[] file = bytes(set, e);
    FileBuffers buffers = new FileBuffers(4);
    ByteBuffer b = buffers.take(file.length);
    b.put(0, file);
    ShardFile.Decoded d = ShardFile.decode(b.slice(0, file.length), e, index.columns(), e.name(), false)
        .owning(() -> buffers.give(b));
    assertTrue(d.inPlace());
    assertTrue(d.retain(), "a batch copies from the file");
    d.release(); // the cache drops it
    ByteBuffer other = buffers.take(file.length);
    assertNotSame(b, other, "the buffer a batch still copies from is not handed out");
    assertEquals(39f, d.data(0).duplicate().order(ByteOrder.LITTLE_ENDIAN).getFloat(d.at(0, 39, 8)), "sample 39, x[0]");
    d.release(); // the batch is done
    assertSame(b, buffers.take(file.length), "then it is read into again");
    assertFalse(d.retain(), "and no one takes a reference to the file it held");
  }

  /** Image {@code i}: a PNG of its own size and colour, so each row's value has its own length and bytes. */
  private static byte[] png(int i) {
    java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(9 + i, 7 + 2 * i,
        java.awt.image.BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        img.setRGB(x, y, (17 * i + x) % 256 << 16 | (29 * y) % 256 << 8 | (x * y + i) % 256);
      }
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try {
      assertTrue(javax.imageio.ImageIO.write(img, "png", out));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  @Test
  void encodedImagesAreServedInPlaceAsTheImageFilesBytes() throws IOException {
    int n = 11;
    List<dev.minibatch.runtime.io.image.EncodedImages.Image> images = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      images.add(new dev.minibatch.runtime.io.image.EncodedImages.Image(png(i), new float[] {i}));
    }
    for (ShardWriter.Compression compression : List.of(ShardWriter.Compression.NONE, ShardWriter.Compression.SNAPPY)) {
      String set = dir.resolve("images-" + compression).toString();
      ImageShardWriter.builder().dataShape(3, 6, 6)
          .writer(ShardWriter.builder().samplesPerFile(4).compression(compression).build()).build().write(images, set);
      ShardIndex index = index(set);
      List<Column> columns = index.columns();
      int c = columns.stream().filter(Column::encoded).findFirst().map(columns::indexOf).orElseThrow();
      for (ShardIndex.Entry e : index.files()) {
        byte[] file = bytes(set, e);
        // Read as the cache reads a local file: into a direct buffer, so the rows are never an array's.
        ByteBuffer direct = ByteBuffer.allocateDirect(file.length).put(file).flip();
        ShardFile.Decoded d = ShardFile.decode(direct, e, columns, e.name(), false);
        assertEquals(compression == ShardWriter.Compression.NONE, d.inPlace(), e.name() + " in place, " + compression);
        for (int r = 0; r < e.samples(); r++) {
          int id = (int) (e.first() + r);
          byte[] expected = png(id);
          assertEquals(expected.length, d.bytes(c, r), "length of image " + id + ", " + compression);
          byte[] got = new byte[d.bytes(c, r)];
          d.data(c).get(d.at(c, r, 0), got);
          assertTrue(java.util.Arrays.equals(expected, got), "bytes of image " + id + ", " + compression);
        }
      }
    }
  }
}
