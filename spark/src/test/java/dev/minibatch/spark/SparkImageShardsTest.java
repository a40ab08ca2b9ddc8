package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
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
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Image shard sets written by Spark's executors: from a {@code binaryFile} DataFrame of a class
 * folder, and from a DataFrame of bytes and labels, each read back by {@link ShardProvider} with
 * the same batches (pixels and labels, augmentation off and on, under one seed) as the set {@link
 * ImageShardWriter} writes locally from the same images.
 */
class SparkImageShardsTest {
  private static final int BATCH = 3;
  private static final long SEED = 5;
  private static final Consumer<ImageRecordProvider.Normalize> NORMALIZE =
      n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.4f, 57.1f, 57.4f);
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

  /** A photo-like image of 20-31 x 18-27 pixels: gradients, a box and noise, different for every {@code i}. */
  private static byte[] image(int i, String format) {
    int w = 20 + 3 * (i % 4);
    int h = 18 + 3 * (i % 3);
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    java.util.SplittableRandom r = new java.util.SplittableRandom(i);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        boolean box = x > w / 4 && x < w / 2 && y > h / 3 && y < 2 * h / 3;
        int red = box ? 220 : (x * 255 / w + 11 * i) % 256;
        int green = box ? 30 : (y * 255 / h) ^ (i * 17 & 0xff);
        int blue = (x + y + r.nextInt(20)) * 5 % 256;
        img.setRGB(x, y, red << 16 | green << 8 | blue);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      assertTrue(ImageIO.write(img, format, out));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * A class folder, made in an order that is not the sorted one: classes "dog", "cat", "eel" (sorted:
   * cat 0, dog 1, eel 2), JPEGs and PNGs, and a text file that is no image. Returns the images in the
   * order writeFolder's rule gives, each as {bytes, label}.
   */
  private List<EncodedImages.Image> classFolder(Path root) throws IOException {
    String[][] files = {
        {"dog", "b.jpg"}, {"dog", "a.png"}, {"cat", "z.jpeg"}, {"cat", "B.jpg"}, {"cat", "m.png"},
        {"eel", "x.JPG"}, {"dog", "c.jpg"}, {"eel", "w.png"}, {"cat", "a.jpg"}, {"dog", "notes.txt"}};
    for (int i = 0; i < files.length; i++) {
      Path f = root.resolve(files[i][0]).resolve(files[i][1]);
      Files.createDirectories(f.getParent());
      String n = files[i][1].toLowerCase(java.util.Locale.ROOT);
      Files.write(f, n.endsWith(".txt") ? "not an image".getBytes() : image(i, n.endsWith(".png") ? "png" : "jpg"));
    }
    // Known order: classes cat, dog, eel; names by their bytes ('B' < 'a' < 'm' < 'z').
    String[][] sorted = {
        {"cat", "B.jpg", "0"}, {"cat", "a.jpg", "0"}, {"cat", "m.png", "0"}, {"cat", "z.jpeg", "0"},
        {"dog", "a.png", "1"}, {"dog", "b.jpg", "1"}, {"dog", "c.jpg", "1"},
        {"eel", "w.png", "2"}, {"eel", "x.JPG", "2"}};
    List<EncodedImages.Image> images = new ArrayList<>();
    for (String[] s : sorted) {
      images.add(new EncodedImages.Image(Files.readAllBytes(root.resolve(s[0]).resolve(s[1])),
          new float[] {Float.parseFloat(s[2])}));
    }
    return images;
  }

  private static ImageShardWriter writer(int labelWidth) {
    return writer(labelWidth, 2);
  }

  private static ImageShardWriter writer(int labelWidth, int samplesPerFile) {
    return ImageShardWriter.builder().dataShape(3, 16, 16).labelWidth(labelWidth)
        .writer(ShardWriter.builder().samplesPerFile(samplesPerFile).build()).build();
  }

  /** Every array of two epochs under {@link #SEED}, with or without a random crop and mirror. */
  private static List<float[]> batches(String set, boolean augment, boolean shuffle) {
    List<float[]> out = new ArrayList<>();
    ShardProvider.Builder b = ShardProvider.builder(set).batchSize(BATCH).seed(SEED).shuffle(shuffle)
        .lastBatch(LastBatch.PARTIAL).normalize("data", NORMALIZE).readers(2);
    if (augment) {
      b.augment("data", a -> a.randCrop(true).randMirror(true));
    }
    try (ShardProvider p = b.build()) {
      for (int e = 0; e < 2; e++) {
        for (NamedBatch batch : p) {
          out.add(floats(batch.get("data")));
          out.add(floats(batch.get("softmax_label")));
        }
      }
    }
    return out;
  }

  private static float[] floats(INDArray a) {
    return a.castTo(DataType.FLOAT).dup('c').reshape(a.length()).toFloatVector();
  }

  /**
   * The same batches, augmented or not. Shuffled too when the sets' files hold the same samples: an
   * epoch's shuffle permutes the files (docs/shards.md, "The global order"), and the executors' files
   * follow the partitions.
   */
  private static void assertSameBatches(String expectedSet, String set, boolean shuffle) {
    for (boolean augment : new boolean[] {false, true}) {
      List<float[]> expected = batches(expectedSet, augment, shuffle);
      List<float[]> got = batches(set, augment, shuffle);
      assertEquals(expected.size(), got.size());
      for (int i = 0; i < got.size(); i++) {
        assertArrayEquals(expected.get(i), got.get(i), "augment " + augment + ", array " + i);
      }
    }
  }

  /** The labels of one epoch in the set's order, and the number of samples. */
  private static List<Float> labelsInOrder(String set) {
    List<Float> labels = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(4).build()) {
      for (NamedBatch b : p) {
        for (float l : b.get("softmax_label").toFloatVector()) {
          labels.add(l);
        }
      }
    }
    return labels;
  }

  @Test
  void aBinaryFileDataFrameGivesTheBatchesOfTheClassFolderWrittenLocally() throws IOException {
    Path root = dir.resolve("photos");
    List<EncodedImages.Image> images = classFolder(root);
    String local = dir.resolve("local").toString();
    writer(1).writeFolder(root, local);
    // Partitions that do not follow the folder: the order comes from the classes and names alone.
    Dataset<Row> files = spark.read().format("binaryFile").load(root + "/*/*").repartition(3);
    String fromSpark = dir.resolve("spark").toString();
    assertEquals(images.size(), SparkImageShards.writeClassFolders(writer(1), files, fromSpark).samples());

    List<Float> labels = labelsInOrder(fromSpark);
    List<Float> expectedLabels = images.stream().map(i -> i.labels()[0]).toList();
    assertEquals(expectedLabels, labels);
    assertEquals(expectedLabels, labelsInOrder(local));
    // Not vacuous: the augmented batches differ from the plain ones, the second epoch's from the first.
    List<float[]> augmented = batches(local, true, false);
    assertNotEquals(Arrays.toString(batches(local, false, false).get(0)), Arrays.toString(augmented.get(0)));
    assertNotEquals(Arrays.toString(augmented.get(0)), Arrays.toString(augmented.get(augmented.size() / 2)));
    assertSameBatches(local, fromSpark, false);
    // The same columns (the encoded image's decoded shape, order and dtype; the labels).
    assertEquals(columns(local), columns(fromSpark));

    // One sample per file: the same files, so the same shuffled epochs as well.
    String local1 = dir.resolve("local-1").toString();
    writer(1, 1).writeFolder(root, local1);
    String fromSpark1 = dir.resolve("spark-1").toString();
    SparkImageShards.writeClassFolders(writer(1, 1), files, fromSpark1);
    assertNotEquals(Arrays.toString(batches(local1, false, false).get(1)),
        Arrays.toString(batches(local1, false, true).get(1)), "premise: the shuffle moves the labels");
    assertSameBatches(local1, fromSpark1, true);
  }

  private static List<String> columns(String set) throws IOException {
    return Files.readAllLines(Path.of(set, "shards.index")).stream().filter(l -> !l.startsWith("file\t")).toList();
  }

  @Test
  void aDataFrameOfBytesAndLabelsGivesTheBatchesOfTheLocalWriter() throws IOException {
    List<EncodedImages.Image> images = classFolder(dir.resolve("photos"));
    String local = dir.resolve("local").toString();
    writer(1).write(images, local);
    StructType schema = new StructType().add("jpeg", DataTypes.BinaryType).add("y", DataTypes.LongType);
    List<Row> rows = new ArrayList<>();
    for (EncodedImages.Image i : images) {
      rows.add(RowFactory.create(i.bytes(), (long) i.labels()[0]));
    }
    String fromSpark = dir.resolve("spark").toString();
    SparkImageShards.write(writer(1), spark.createDataFrame(rows, schema), "jpeg", "y", fromSpark);
    assertEquals(images.stream().map(i -> i.labels()[0]).toList(), labelsInOrder(fromSpark));
    assertSameBatches(local, fromSpark, false);
    assertEquals(columns(local), columns(fromSpark));
  }

  @Test
  void packedLabelsAreKept() throws IOException {
    List<EncodedImages.Image> folder = classFolder(dir.resolve("photos"));
    List<EncodedImages.Image> images = new ArrayList<>();
    List<Row> rows = new ArrayList<>();
    for (int k = 0; k < folder.size(); k++) {
      float[] labels = {k, k + 0.5f, -k};
      images.add(new EncodedImages.Image(folder.get(k).bytes(), labels));
      rows.add(RowFactory.create(folder.get(k).bytes(), toList(labels)));
    }
    StructType schema = new StructType().add("png", DataTypes.BinaryType)
        .add("boxes", DataTypes.createArrayType(DataTypes.FloatType, false));
    String local = dir.resolve("local").toString();
    writer(3).write(images, local);
    String fromSpark = dir.resolve("spark").toString();
    Dataset<Row> df = spark.createDataFrame(rows, schema);
    SparkImageShards.write(writer(3), df, "png", "boxes", fromSpark);
    try (ShardProvider p = ShardProvider.builder(fromSpark).batchSize(4).build()) {
      int k = 0;
      for (NamedBatch b : p) {
        INDArray l = b.get("softmax_label");
        for (int r = 0; r < b.countSamples(); r++, k++) {
          assertArrayEquals(new float[] {k, k + 0.5f, -k}, l.getRow(r).toFloatVector(), "image " + k);
        }
      }
      assertEquals(folder.size(), k);
    }
    assertSameBatches(local, fromSpark, false);
  }

  private static List<Float> toList(float[] a) {
    List<Float> l = new ArrayList<>();
    for (float f : a) {
      l.add(f);
    }
    return l;
  }

  @Test
  void badInputIsNamed() throws IOException {
    StructType schema = new StructType().add("jpeg", DataTypes.BinaryType).add("y", DataTypes.IntegerType);
    List<Row> rows = List.of(RowFactory.create(image(1, "jpg"), 0), RowFactory.create(new byte[0], 1));
    Dataset<Row> df = spark.createDataFrame(rows, schema).coalesce(1);
    SparkSampleException e = assertThrows(SparkSampleException.class,
        () -> SparkImageShards.write(writer(1), df, "jpeg", "y", dir.resolve("a").toString()));
    assertEquals("row 1 of partition 0: image column 'jpeg' is empty; expected an encoded image (JPEG, PNG)",
        e.getMessage());
    IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
        () -> SparkImageShards.write(writer(1), df, "y", "jpeg", dir.resolve("b").toString()));
    assertEquals("column 'y' has type int, expected binary (the encoded images)", type.getMessage());
    IllegalArgumentException width = assertThrows(IllegalArgumentException.class,
        () -> SparkImageShards.write(writer(3), df, "jpeg", "y", dir.resolve("c").toString()));
    assertTrue(width.getMessage().startsWith("label column 'y' holds one label per image; the writer's labelWidth is 3"),
        width.getMessage());

    Path root = dir.resolve("photos");
    Files.createDirectories(root.resolve("cat"));
    Files.write(root.resolve("cat").resolve("notes.txt"), "no image".getBytes());
    Dataset<Row> files = spark.read().format("binaryFile").load(root + "/*/*");
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> SparkImageShards.writeClassFolders(writer(1), files, dir.resolve("d").toString()));
    assertTrue(none.getMessage().startsWith("the DataFrame holds no image file (a name ending in .jpg"), none.getMessage());
    IllegalArgumentException packed = assertThrows(IllegalArgumentException.class,
        () -> SparkImageShards.writeClassFolders(writer(3), files, dir.resolve("e").toString()));
    assertEquals("a class folder gives one label per image; the writer's labelWidth is 3", packed.getMessage());
  }
}
