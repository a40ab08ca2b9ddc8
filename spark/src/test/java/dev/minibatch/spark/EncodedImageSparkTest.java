package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.internal.RowValues;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/**
 * A sample with an encoded-image member ({@link Picture}) from a DataFrame whose binary column holds
 * real PNGs drawn here: Spark's batches, materialised samples and shard sets give each image's pixels
 * as ImageIO decodes the same bytes (PNG is lossless, so the answer is known independently of the
 * decoder under test), rows named by their id label; the shard set stores the PNG bytes themselves;
 * bad bytes and a column of the wrong type are named.
 */
class EncodedImageSparkTest {
  private static final int N = 7;
  private static SparkSession spark;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Picture {@code i}: 5 by 4 pixels, every pixel's colour different and depending on {@code i}. */
  private static BufferedImage drawing(int i) {
    BufferedImage img = new BufferedImage(5, 4, BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < 4; y++) {
      for (int x = 0; x < 5; x++) {
        img.setRGB(x, y, (40 * x + 9 * i) % 256 << 16 | (60 * y + 31 * i) % 256 << 8 | (17 * (x + y) + 50 * i) % 256);
      }
    }
    return img;
  }

  private static byte[] png(BufferedImage img) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      assertTrue(ImageIO.write(img, "png", out));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** The pixels of {@code bytes} as ImageIO decodes them, (y, x, channel) row-major, red first. */
  private static int[] decoded(byte[] bytes) {
    BufferedImage img;
    try {
      img = ImageIO.read(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int[] out = new int[img.getHeight() * img.getWidth() * 3];
    int k = 0;
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        int rgb = img.getRGB(x, y);
        out[k++] = rgb >> 16 & 0xff;
        out[k++] = rgb >> 8 & 0xff;
        out[k++] = rgb & 0xff;
      }
    }
    return out;
  }

  /** Id {@code 100 + i} → the PNG of picture {@code i}. */
  private static Map<Integer, byte[]> pngs() {
    Map<Integer, byte[]> out = new HashMap<>();
    for (int i = 0; i < N; i++) {
      out.put(100 + i, png(drawing(i)));
    }
    return out;
  }

  /** A DataFrame of (id, png) in 3 partitions, the id first: the columns are found by name. */
  private static Dataset<Row> frame(Map<Integer, byte[]> images) {
    List<Row> rows = new ArrayList<>();
    images.forEach((id, bytes) -> rows.add(RowFactory.create(id, bytes)));
    StructType schema = DataTypes.createStructType(new StructField[] {
        DataTypes.createStructField("id", DataTypes.IntegerType, false),
        DataTypes.createStructField("png", DataTypes.BinaryType, false)});
    return spark.createDataFrame(rows, schema).repartition(3);
  }

  /** The samples of {@link #frame}, ordered by id (the caller unpersists them). */
  private static SparkSamples<Picture, PictureProvider> inIdOrder(Map<Integer, byte[]> images) {
    return SparkSamples.builder(PictureSparkRows.INSTANCE).orderBy("id").fromDataFrame(frame(images));
  }

  /** Row {@code r} of a UINT8 (rows, 4, 5, 3) array, row-major. */
  private static int[] pixels(INDArray batch, int r) {
    assertArrayEquals(new long[] {4, 5, 3}, java.util.Arrays.copyOfRange(batch.shape(), 1, 4));
    return batch.get(org.nd4j.linalg.indexing.NDArrayIndex.point(r)).castTo(DataType.INT32).dup('c')
        .reshape(60).toIntVector();
  }

  @Test
  void theSchemaSaysTheColumnHoldsEncodedBytes() {
    StructField png = PictureSparkRows.INSTANCE.schema().apply("png");
    assertEquals(DataTypes.BinaryType, png.dataType());
    assertEquals("IMAGE_RGB", png.metadata().getString(RowValues.ENCODING_KEY));
    assertEquals("IMAGE_RGB", RowValues.encoding(png));
    assertArrayEquals(new long[] {4, 5, 3}, png.metadata().getLongArray(RowValues.SHAPE_KEY));
    assertEquals("data", png.metadata().getString(RowValues.ROLE_KEY));
    assertEquals(null, RowValues.encoding(PictureSparkRows.INSTANCE.schema().apply("id")));

    // Any length: the bytes are not decoded (nor length-checked) by the mapping, and come back as given.
    byte[] some = {1, 2, 3};
    Picture p = PictureSparkRows.INSTANCE.fromRow(PictureSparkRows.INSTANCE.toRow(new Picture(some, 5)));
    assertArrayEquals(some, p.png());
    assertEquals(5, p.id());
    NullPointerException none = assertThrows(NullPointerException.class,
        () -> PictureSparkRows.INSTANCE.toRow(new Picture(null, 5)));
    assertEquals("Picture.png is null", none.getMessage());
  }

  @Test
  void anArrayColumnInsteadOfBinaryIsNamedBeforeAnyJob() {
    StructType ints = DataTypes.createStructType(new StructField[] {
        DataTypes.createStructField("png", DataTypes.createArrayType(DataTypes.IntegerType), false),
        DataTypes.createStructField("id", DataTypes.IntegerType, false)});
    Dataset<Row> df = spark.createDataFrame(List.of(RowFactory.create(List.of(1, 2), 3)), ints);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SparkSamples.builder(PictureSparkRows.INSTANCE).fromDataFrame(df));
    assertEquals("the DataFrame does not fit Picture: column 'png' has type array<int>, expected binary (the encoded"
        + " bytes of an IMAGE_RGB image, any length, decoded to shape [4, 5, 3]) for Picture.png", e.getMessage());
  }

  @Test
  void sparksBatchesAreTheDecodedImagesOfTheirRows() {
    Map<Integer, byte[]> images = pngs();
    SparkSamples<Picture, PictureProvider> samples = inIdOrder(images);
    try {
      assertEquals(N, samples.count());
      // In index order (by id): batches of 3, 3, 1.
      List<MultiDataSet> batches = samples.batches(b -> b.batchSize(3)).multiDataSets(0).collect();
      assertEquals(3, batches.size());
      int id = 100;
      for (MultiDataSet m : batches) {
        for (int r = 0; r < m.getLabels(0).size(0); r++) {
          assertEquals(id, m.getLabels(0).getInt(r), "label of row " + r);
          assertArrayEquals(decoded(images.get(id)), pixels(m.getFeatures(0), r), "pixels of picture " + id);
          id++;
        }
      }
      assertEquals(100 + N, id);

      // Shuffled: every row still holds the image its label names, and every image comes once.
      assertEquals(List.of(100, 101, 102, 103, 104, 105, 106),
          labelsOfTheirPixels(samples.batches(b -> b.batchSize(2).shuffle(true).seed(7)).multiDataSets(1).collect(),
              images));
    } finally {
      samples.unpersist();
    }
  }

  @Test
  void theDefaultOrderSortsByTheBytesToo() {
    Map<Integer, byte[]> images = pngs();
    // No orderBy: the rows are numbered by all the record's columns, the binary one first.
    SparkSamples<Picture, PictureProvider> samples = SparkSamples.builder(PictureSparkRows.INSTANCE)
        .fromDataFrame(frame(images));
    try {
      assertEquals(List.of(100, 101, 102, 103, 104, 105, 106),
          labelsOfTheirPixels(samples.batches(b -> b.batchSize(4)).multiDataSets(0).collect(), images));
    } finally {
      samples.unpersist();
    }
  }

  /**
   * The labels of every row of {@code batches}, sorted, each row's pixels checked against the
   * independent decode of the image its label names.
   */
  private static List<Integer> labelsOfTheirPixels(List<MultiDataSet> batches, Map<Integer, byte[]> images) {
    List<Integer> seen = new ArrayList<>();
    for (MultiDataSet m : batches) {
      for (int r = 0; r < m.getLabels(0).size(0); r++) {
        int label = m.getLabels(0).getInt(r);
        seen.add(label);
        assertArrayEquals(decoded(images.get(label)), pixels(m.getFeatures(0), r), "pixels of picture " + label);
      }
    }
    seen.sort(null);
    return seen;
  }

  @Test
  void materialisedSamplesKeepTheBytesAndDecodeOnTheTrainer() {
    Map<Integer, byte[]> images = pngs();
    SparkSamples<Picture, PictureProvider> samples = inIdOrder(images);
    String path = dir.resolve("materialised").toString();
    try {
      samples.materialize(path);
    } finally {
      samples.unpersist();
    }
    MaterializedSamples<Picture, PictureProvider> m = MaterializedSamples.open(spark, path, PictureSparkRows.INSTANCE);
    List<Picture> read = m.read(0, N);
    for (int i = 0; i < N; i++) {
      assertArrayEquals(images.get(100 + i), read.get(i).png(), "bytes of sample " + i);
    }
    try (PictureProvider p = m.provider(0, 1, b -> b.batchSize(N))) {
      PictureBatch b = p.iterator().next();
      for (int i = 0; i < N; i++) {
        assertEquals(100 + i, b.getId().getInt(i));
        assertArrayEquals(decoded(images.get(100 + i)), pixels(b.getPng(), i), "pixels of sample " + i);
      }
    }
  }

  @Test
  void aShardSetStoresTheEncodedBytesAsTheyAre() {
    Map<Integer, byte[]> images = pngs();
    SparkSamples<Picture, PictureProvider> samples = inIdOrder(images);
    String set = dir.resolve("set").toString();
    ShardSet written;
    try {
      written = samples.writeShards(set, ShardWriter.builder().samplesPerFile(3).build());
    } finally {
      samples.unpersist();
    }
    assertEquals(N, written.samples());
    // The files hold the PNGs' own bytes in a binary column, in index order, not decoded pixels.
    List<Row> stored = spark.read().parquet(set + "/*.parquet").collectAsList();
    assertEquals(N, stored.size());
    List<Integer> ids = new ArrayList<>();
    for (Row r : stored) {
      int id = r.getInt(r.fieldIndex("id"));
      ids.add(id);
      assertArrayEquals(images.get(id), (byte[]) r.get(r.fieldIndex("png")), "stored bytes of picture " + id);
    }
    ids.sort(null);
    assertEquals(List.of(100, 101, 102, 103, 104, 105, 106), ids);
    // Read back by the generated builder, which decodes them: index order is id order.
    try (PictureProvider p = PictureProvider.builder().shards(set).batchSize(N).build()) {
      PictureBatch b = p.iterator().next();
      for (int i = 0; i < N; i++) {
        assertEquals(100 + i, b.getId().getInt(i));
        assertArrayEquals(decoded(images.get(100 + i)), pixels(b.getPng(), i), "pixels of sample " + i);
      }
    }
  }

  /** PictureSparkRows as a mapping generated without minibatch-shards would be: no way to store the bytes. */
  private static final class NoShards implements SparkRows<Picture, PictureProvider> {
    private static final long serialVersionUID = 1L;

    @Override
    public StructType schema() {
      return PictureSparkRows.INSTANCE.schema();
    }

    @Override
    public Class<Picture> sampleType() {
      return Picture.class;
    }

    @Override
    public void check(StructType found) {
      PictureSparkRows.INSTANCE.check(found);
    }

    @Override
    public Picture fromRow(Row row, long index) {
      return PictureSparkRows.INSTANCE.fromRow(row, index);
    }

    @Override
    public Row toRow(Picture sample) {
      return PictureSparkRows.INSTANCE.toRow(sample);
    }

    @Override
    public int defaultBatchSize() {
      return 0;
    }

    @Override
    public PictureProvider provider(List<? extends Picture> samples, ProviderSettings settings) {
      return PictureSparkRows.INSTANCE.provider(samples, settings);
    }
  }

  @Test
  void aMappingThatCannotStoreTheBytesIsRefusedNotDecoded() {
    SparkSamples<Picture, PictureProvider> samples = SparkSamples.builder(new NoShards()).orderBy("id")
        .fromDataFrame(frame(pngs()));
    java.io.File set = dir.resolve("set").toFile();
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> samples.writeShards(set.toString(), ShardWriter.builder().build()));
      assertEquals("writeShards: Picture.png is an encoded IMAGE_RGB image, stored in a shard set as its bytes, and "
          + NoShards.class.getName() + " cannot write them (it was generated without minibatch-shards on the compile"
          + " class path); compile the sample with minibatch-shards", e.getMessage());
      assertTrue(!set.exists(), "nothing written");
    } finally {
      samples.unpersist();
    }
  }

  @Test
  void corruptBytesAreNamedBySampleAndMember() {
    Map<Integer, byte[]> images = pngs();
    images.put(103, "not an image".getBytes(StandardCharsets.US_ASCII));
    SparkSamples<Picture, PictureProvider> samples = inIdOrder(images);
    try {
      SparkSampleException e = assertThrows(SparkSampleException.class,
          () -> SparkSampleException.action(() -> samples.batches(b -> b.batchSize(2)).multiDataSets(0).collect()));
      // Id 103 is sample 3 (ids in order), in batch 1 (samples 2 and 3); 12 bytes, "not " in hex.
      assertEquals("sample 3 (epoch 0, batch 1; collated alone, as sample 0): field 'png' of sample 0: OpenCV cannot"
          + " decode the 12 image bytes (they start with 0x6E6F7420); expected a JPEG, PNG or another format OpenCV"
          + " reads", e.getMessage());
      assertEquals(3, e.index());
    } finally {
      samples.unpersist();
    }
  }

  @Test
  void aShardSetRefusesAnImageWithoutBytesNamingItsSample() {
    Map<Integer, byte[]> images = pngs();
    images.put(105, new byte[0]);
    SparkSamples<Picture, PictureProvider> samples = inIdOrder(images);
    try {
      SparkSampleException e = assertThrows(SparkSampleException.class,
          () -> samples.writeShards(dir.resolve("set").toString(), ShardWriter.builder().build()));
      assertTrue(e.getMessage().endsWith("sample 5's encoded image 'png' has no bytes; expected an encoded image (JPEG,"
          + " PNG)"), e.getMessage());
    } finally {
      samples.unpersist();
    }
  }
}
