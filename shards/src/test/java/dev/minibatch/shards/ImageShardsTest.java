package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Shard sets of encoded images: written from a record file, a class folder and a list, read by
 * {@link ShardProvider} through the image providers' one decode step. The key check: a record file
 * read by {@link ImageRecordProvider} and the shard set converted from it give the same batches
 * (pixels and labels) under the same seed and augmentation, for 1 and 3 reader threads, 2 trainers
 * and a resume.
 */
class ImageShardsTest {
  private static final int IMAGES = 16;
  private static final int BATCH = 4;
  private static final long SEED = 11;

  @TempDir Path dir;

  /** A photo-like JPEG: gradients in each channel, a filled rectangle and noise, sized by {@code i}. */
  private static byte[] jpeg(int i) {
    int w = 30 + 3 * (i % 5);
    int h = 28 + 2 * (i % 4);
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    java.util.SplittableRandom r = new java.util.SplittableRandom(i);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        boolean box = x > w / 4 && x < w / 2 && y > h / 3 && y < 2 * h / 3;
        int red = box ? 230 : (x * 255 / w + 7 * i) % 256;
        int green = box ? 20 : (y * 255 / h) ^ (i * 13 & 0xff);
        int blue = (x + y + r.nextInt(16)) * 3 % 256;
        img.setRGB(x, y, red << 16 | green << 8 | blue);
      }
    }
    return encode(img, "jpg");
  }

  private static byte[] encode(BufferedImage img, String format) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      assertTrue(ImageIO.write(img, format, out));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** A record file of {@link #IMAGES} JPEGs, image i labelled i % 3 (or, packed, {i, i + 0.5, -i}). */
  private Path recordFile(String name, boolean packed) {
    Path rec = dir.resolve(name + ".rec");
    try (RecordIOWriter out = RecordIOWriter.create(rec, dir.resolve(name + ".idx"))) {
      for (int i = 0; i < IMAGES; i++) {
        ImageRecord r = packed ? ImageRecord.of(i, new float[] {i, i + 0.5f, -i}, jpeg(i))
            : ImageRecord.of(i, i % 3, jpeg(i));
        out.write(i, r.encode());
      }
    }
    return rec;
  }

  private static final Consumer<ImageRecordProvider.Augment> AUGMENT = a -> a.randCrop(true).randMirror(true);
  private static final Consumer<ImageRecordProvider.Normalize> NORMALIZE =
      n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.4f, 57.1f, 57.4f);

  private ImageRecordProvider.Builder records(Path rec, int threads) {
    return records(rec, threads, AUGMENT).dataShape(3, 24, 24);
  }

  private ImageRecordProvider.Builder records(Path rec, int threads, Consumer<ImageRecordProvider.Augment> augment) {
    return ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(Path.of(rec.toString().replace(".rec", ".idx")))
        .batchSize(BATCH).seed(SEED).shuffle(false).lastBatch(LastBatch.PARTIAL)
        .augment(augment).normalize(NORMALIZE).preprocessThreads(threads);
  }

  private static ShardProvider.Builder shards(String set, int readers) {
    return shards(set, readers, AUGMENT);
  }

  private static ShardProvider.Builder shards(String set, int readers, Consumer<ImageRecordProvider.Augment> augment) {
    return ShardProvider.builder(set).batchSize(BATCH).seed(SEED).shuffle(false).lastBatch(LastBatch.PARTIAL)
        .augment("data", augment).normalize("data", NORMALIZE).readers(readers);
  }

  @Test
  void aRecordFileAndTheShardSetConvertedFromItGiveTheSameBatchesForAnyReaderThreads() {
    Path rec = recordFile("photos", false);
    String set = dir.resolve("photos-shards").toString();
    ImageShardWriter.builder().dataShape(3, 24, 24).writer(ShardWriter.builder().samplesPerFile(5).build()).build()
        .writeRecordIO(rec, dir.resolve("photos.idx"), set);
    List<float[]> expected;
    try (ImageRecordProvider p = records(rec, 1).build()) {
      expected = ImageBatches.read(p, 2, "data", ImageRecordProvider.LABEL_NAME);
    }
    assertEquals(2 * 2 * IMAGES / BATCH, expected.size());
    // Not vacuous: the random crop and mirror differ between epochs (the draws include the epoch).
    assertNotEquals(Arrays.toString(expected.get(0)), Arrays.toString(expected.get(2 * IMAGES / BATCH)));
    float[] labels = expected.get(1);
    assertArrayEquals(new float[] {0, 1, 2, 0}, labels);
    for (int readers : new int[] {1, 3}) {
      try (ShardProvider p = shards(set, readers).build()) {
        assertEquals(List.of(dev.minibatch.DataDesc.builder().name("data").shape(dev.minibatch.shape.Shape.of(BATCH, 3,
            24, 24)).dtype(DType.FLOAT32).layout("NCHW").build()), p.provideData());
        List<float[]> got = ImageBatches.read(p, 2, "data", ImageRecordProvider.LABEL_NAME);
        assertEquals(expected.size(), got.size());
        for (int i = 0; i < got.size(); i++) {
          assertArrayEquals(expected.get(i), got.get(i), "readers " + readers + ", array " + i);
        }
      }
    }
  }

  @Test
  void reducedDecodingPlansTheSameCropsFromTheShardSet() {
    // A random resized crop to 8x8 from 30-42 pixel photos: most boxes are 2x the output or more,
    // so the JPEG is decoded at 1/2 or 1/4 with the crop drawn from its header's size first.
    Consumer<ImageRecordProvider.Augment> rrc = a -> a.randomResizedCrop(true).randMirror(true);
    Path rec = recordFile("photos", false);
    String set = dir.resolve("photos-shards").toString();
    ImageShardWriter.builder().dataShape(3, 8, 8).build().writeRecordIO(rec, null, set);
    List<float[]> expected;
    try (ImageRecordProvider p = records(rec, 2, rrc).dataShape(3, 8, 8).build()) {
      expected = ImageBatches.read(p, 2, "data", ImageRecordProvider.LABEL_NAME);
    }
    List<float[]> full;
    try (ImageRecordProvider p = records(rec, 2, rrc).dataShape(3, 8, 8).reducedDecode(false).build()) {
      full = ImageBatches.read(p, 1, "data", ImageRecordProvider.LABEL_NAME);
    }
    // Premise: the reduced decode does happen (its pixels differ from the full decode's).
    assertNotEquals(Arrays.toString(expected.get(0)), Arrays.toString(full.get(0)));
    try (ShardProvider p = shards(set, 3, rrc).build()) {
      List<float[]> got = ImageBatches.read(p, 2, "data", ImageRecordProvider.LABEL_NAME);
      assertEquals(expected.size(), got.size());
      for (int i = 0; i < got.size(); i++) {
        assertArrayEquals(expected.get(i), got.get(i), "array " + i);
      }
    }
  }

  @Test
  void twoTrainersAndAResumeGetTheSingleTrainersBatches() {
    Path rec = recordFile("photos", false);
    String set = dir.resolve("photos-shards").toString();
    ImageShardWriter.builder().dataShape(3, 24, 24).build().writeRecordIO(rec, null, set);
    List<float[]> single;
    try (ShardProvider p = shards(set, 2).shuffle(true).build()) {
      single = ImageBatches.read(p, 1, "data", ImageRecordProvider.LABEL_NAME);
    }
    for (int rank = 0; rank < 2; rank++) {
      try (ShardProvider p = shards(set, 1).shuffle(true).shard(2, rank).build()) {
        List<float[]> mine = ImageBatches.read(p, 1, "data", ImageRecordProvider.LABEL_NAME);
        for (int j = 0; j < mine.size() / 2; j++) {
          int global = 2 * j + rank; // elastic shards: trainer p gets global batches p, p + 2, ...
          assertArrayEquals(single.get(2 * global), mine.get(2 * j), "trainer " + rank + ", batch " + j);
          assertArrayEquals(single.get(2 * global + 1), mine.get(2 * j + 1));
        }
      }
    }
    IterationState state;
    try (ShardProvider p = shards(set, 3).shuffle(true).build(); BatchIterator<NamedBatch> it = p.iterator()) {
      it.next();
      state = p.saveState();
    }
    try (ShardProvider p = shards(set, 2).shuffle(true).build()) {
      p.restoreState(IterationState.decode(state.encode()));
      List<float[]> rest = ImageBatches.read(p, 1, "data", ImageRecordProvider.LABEL_NAME);
      assertEquals(single.subList(2, single.size()).size(), rest.size());
      for (int i = 0; i < rest.size(); i++) {
        assertArrayEquals(single.get(2 + i), rest.get(i), "after the resume, array " + i);
      }
    }
  }

  @Test
  void packedLabelsAreKept() {
    Path rec = recordFile("boxes", true);
    String set = dir.resolve("boxes-shards").toString();
    ImageShardWriter.builder().dataShape(3, 24, 24).labelWidth(3).build().writeRecordIO(rec, null, set);
    try (ShardProvider p = shards(set, 1).build()) {
      int i = 0;
      for (NamedBatch b : p) {
        INDArray l = b.get(ImageRecordProvider.LABEL_NAME);
        assertArrayEquals(new long[] {BATCH, 3}, l.shape());
        for (int r = 0; r < BATCH; r++, i++) {
          assertArrayEquals(new float[] {i, i + 0.5f, -i}, l.getRow(r).toFloatVector());
        }
      }
      assertEquals(IMAGES, i);
    }
    // The same setting that the provider needs: a width of 1 names the record and the fix.
    FileFormatException e = assertThrows(FileFormatException.class, () -> ImageShardWriter.builder()
        .dataShape(3, 24, 24).build().writeRecordIO(rec, null, dir.resolve("wrong").toString()));
    assertTrue(e.getMessage().contains("the record packs 3 labels but labelWidth is 1"), e.getMessage());
  }

  /** A PNG (lossless) of known pixels: (y, x) holds red 10 * y + x + 40 * k, green 3 * x + k, blue 200 - y. */
  private static byte[] png(int k, int h, int w) {
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        img.setRGB(x, y, (10 * y + x + 40 * k) << 16 | (3 * x + k) << 8 | (200 - y));
      }
    }
    return encode(img, "png");
  }

  @Test
  void aClassFolderIsWrittenInSortedOrderAndDecodesToItsOwnPixels() throws IOException {
    Path photos = dir.resolve("photos");
    // Classes sorted: "cat" is 0, "dog" 1; files sorted within each.
    String[][] files = {{"cat", "b.png", "0"}, {"cat", "a.png", "1"}, {"dog", "c.png", "2"}};
    for (String[] f : files) {
      Files.createDirectories(photos.resolve(f[0]));
      Files.write(photos.resolve(f[0]).resolve(f[1]), png(Integer.parseInt(f[2]), 5, 6));
    }
    String set = dir.resolve("folder-shards").toString();
    ShardSet written = ImageShardWriter.builder().dataShape(3, 5, 6).dtype(DType.UINT8).build().writeFolder(photos, set);
    assertEquals(3, written.samples());
    String index = Files.readString(dir.resolve("folder-shards").resolve("shards.index"));
    assertTrue(index.startsWith("minibatch-shards/3\ncolumn\tdata DATA UINT8 [3,5,6] NCHW encoding=IMAGE_RGB\n"
        + "column\tsoftmax_label LABEL FLOAT32 [] N\nfile\t"), index);
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).readers(2).build()) {
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new float[] {0, 0, 1}, b.get("softmax_label").toFloatVector());
      int[] order = {1, 0, 2}; // a.png (k = 1), b.png (k = 0), then dog's c.png (k = 2)
      INDArray data = b.get("data");
      for (int r = 0; r < 3; r++) {
        int k = order[r];
        for (int y = 0; y < 5; y++) {
          for (int x = 0; x < 6; x++) {
            assertEquals(10 * y + x + 40 * k, data.getInt(r, 0, y, x), "red at " + y + "," + x);
            assertEquals(3 * x + k, data.getInt(r, 1, y, x));
            assertEquals(200 - y, data.getInt(r, 2, y, x));
          }
        }
      }
    }
  }

  @Test
  void aCorruptJpegIsNamedByFileRowAndColumnAndCountedByTheBadSampleBudget() {
    List<EncodedImages.Image> list = new ArrayList<>();
    int cut = jpeg(7).length / 2;
    for (int i = 0; i < 10; i++) {
      byte[] bytes = jpeg(i);
      if (i == 7) {
        bytes = Arrays.copyOf(bytes, cut); // cut short
      }
      list.add(new EncodedImages.Image(bytes, new float[] {i}));
    }
    String set = dir.resolve("corrupt").toString();
    ImageShardWriter.builder().dataShape(3, 16, 16).writer(ShardWriter.builder().samplesPerFile(4).build()).build()
        .write(list, set);
    List<BadSample> bad = new ArrayList<>();
    List<Float> seen = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).lastBatch(LastBatch.PARTIAL).readers(2)
        .badSamples(BadSamples.skip(1)).build()) {
      PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
      while (it.hasNext()) {
        NamedBatch b = it.next();
        for (int r = 0; r < b.rows(); r++) {
          seen.add(b.get("softmax_label").getFloat(r));
        }
      }
      bad.addAll(PipelineStats.of(it).badSamples());
    }
    assertEquals(List.of(0f, 1f, 2f, 3f, 4f, 5f, 6f, 8f, 9f), seen);
    assertEquals(1, bad.size());
    assertEquals(7, bad.get(0).sample());
    FileFormatException e = assertInstanceOf(FileFormatException.class, bad.get(0).cause());
    // Sample 7 is row 3 of the second file (files of 4 samples).
    assertTrue(e.file().endsWith("corrupt/part-00001.parquet"), e.file());
    // The JPEG check's own words, after the place in the set.
    assertTrue(e.getMessage().contains("part-00001.parquet: row 3 (of the file), column 'data': corrupt JPEG: the "
        + cut + " bytes end inside"), e.getMessage());
    // Without a budget the epoch fails on it, naming the same.
    try (ShardProvider p = ShardProvider.builder(set).batchSize(3).readers(2).build()) {
      RuntimeException failed = assertThrows(RuntimeException.class, () -> {
        for (NamedBatch b : p) {
          b.rows();
        }
      });
      Throwable cause = failed;
      while (cause != null && !(cause instanceof FileFormatException)) {
        cause = cause.getCause();
      }
      assertInstanceOf(FileFormatException.class, cause, String.valueOf(failed));
      assertTrue(cause.getMessage().contains("row 3 (of the file), column 'data'"), cause.getMessage());
    }
  }

  @Test
  void settingsNamingAColumnThatHoldsNoImagesAreRefused() {
    List<EncodedImages.Image> list = List.of(new EncodedImages.Image(jpeg(0), new float[] {1}));
    String set = dir.resolve("one").toString();
    ImageShardWriter.builder().dataShape(3, 8, 8).build().write(list, set);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShardProvider.builder(set)
        .batchSize(1).augment("softmax_label", a -> a.randMirror(true)).build());
    assertTrue(e.getMessage().contains("'softmax_label' is not one"), e.getMessage());
    IllegalArgumentException labels = assertThrows(IllegalArgumentException.class, () -> ImageShardWriter.builder()
        .dataShape(3, 8, 8).build().write(List.of(new EncodedImages.Image(jpeg(0), new float[] {1, 2})),
            dir.resolve("two").toString()));
    assertEquals("image 0 of the iterable has 2 labels, labelWidth is 1", labels.getMessage());
  }

  @Test
  void theWritersOutputIsCheckedAsTheImageProvidersIs() {
    // The same checks and phrasing as ImageRecordProvider and ImageDecoder (one ImageOutput value), named.
    assertEquals("ImageShardWriter: dataShape's channels must be 1, 3 or 4, got 2", assertThrows(
        IllegalArgumentException.class, () -> ImageShardWriter.builder().dataShape(2, 8, 8).build()).getMessage());
    assertEquals("ImageShardWriter: dataShape's height and width must be positive, got 8x0", assertThrows(
        IllegalArgumentException.class, () -> ImageShardWriter.builder().dataShape(3, 8, 0).build()).getMessage());
    assertEquals("ImageShardWriter: set dataShape(channels, height, width), e.g. dataShape(3, 224, 224)",
        assertThrows(IllegalStateException.class, () -> ImageShardWriter.builder().build()).getMessage());
    assertEquals("image data is FLOAT32 or UINT8, got INT32", assertThrows(IllegalArgumentException.class,
        () -> ImageShardWriter.builder().dtype(DType.INT32)).getMessage());
  }

  @Test
  void anotherToolReadsTheImageColumnAsTheImageFilesBytes() throws Exception {
    List<EncodedImages.Image> list = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      list.add(new EncodedImages.Image(jpeg(i), new float[] {i}));
    }
    String set = dir.resolve("duck").toString();
    ImageShardWriter.builder().dataShape(3, 8, 8).build().write(list, set);
    String files = Path.of(set).resolve("*.parquet").toString().replace("'", "''");
    try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement st = db.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT typeof(data), data, softmax_label FROM read_parquet('" + files
            + "')")) {
      for (int i = 0; i < 3; i++) {
        assertTrue(rs.next());
        assertEquals("BLOB", rs.getString(1));
        byte[] bytes = rs.getBytes(2);
        assertArrayEquals(jpeg(i), bytes, "image " + i + " as it was written");
        BufferedImage decoded = ImageIO.read(new java.io.ByteArrayInputStream(bytes));
        assertEquals(30 + 3 * i, decoded.getWidth());
        assertEquals(i, rs.getFloat(3));
      }
      assertTrue(!rs.next());
    }
    try (org.apache.parquet.hadoop.ParquetFileReader r = org.apache.parquet.hadoop.ParquetFileReader.open(
        new BytesInputFile(Files.readAllBytes(Path.of(set, "part-00000.parquet"))))) {
      var meta = r.getFooter().getFileMetaData();
      assertEquals("4", meta.getKeyValueMetaData().get("minibatch.version"));
      assertEquals("data DATA FLOAT32 [3,8,8] NCHW encoding=IMAGE_RGB\nsoftmax_label LABEL FLOAT32 [] N\n",
          meta.getKeyValueMetaData().get("minibatch.columns"));
      assertEquals("required binary data", meta.getSchema().getType("data").toString());
    }
    // What `minibatch inspect` shows of the set.
    dev.minibatch.runtime.io.Format.Report report = new ShardSetFormat().describe(dev.minibatch.runtime.io.Location.parse(
        set), dev.minibatch.runtime.io.Format.Options.defaults());
    assertEquals("data, (3, 8, 8) FLOAT32 per sample, stored as encoded images (IMAGE_RGB)", report.field("column data"));
  }
}
