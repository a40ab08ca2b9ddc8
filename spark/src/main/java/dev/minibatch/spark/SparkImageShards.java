package dev.minibatch.spark;

import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Shard sets of encoded images written by Spark's executors in one job: the set {@link
 * ImageShardWriter} writes (each image's JPEG or PNG bytes in a column whose field holds the decoded
 * shape, channel order and dtype, its labels beside it), which every trainer then streams, decodes
 * and augments with {@code ShardProvider}. Each partition of the DataFrame is one segment of the
 * set, written by its task ({@link ImageShardWriter#writeSegment}); the driver commits them. The
 * set's order is the DataFrame's, partition by partition.
 *
 * <pre>{@code
 * ImageShardWriter images = ImageShardWriter.builder().dataShape(3, 224, 224)
 *     .writer(ShardWriter.builder().configuration(spark.sparkContext().hadoopConfiguration()).build()).build();
 * Dataset<Row> files = spark.read().format("binaryFile").option("recursiveFileLookup", "true").load("hdfs://nn/photos");
 * ShardSet set = SparkImageShards.writeClassFolders(images, files, "hdfs://nn/data/photos-shards");
 * }</pre>
 */
public final class SparkImageShards {
  /** The columns of Spark's {@code binaryFile} DataFrames that {@link #writeClassFolders} reads. */
  static final String PATH = "path";
  static final String CONTENT = "content";
  private static final String LABEL = "__minibatch_label";
  private static final String NAME = "__minibatch_name";

  private SparkImageShards() {}

  /**
   * Writes the image files of a {@code binaryFile} DataFrame ({@code spark.read().format("binaryFile")};
   * its columns {@code path} and {@code content} are read) as a class folder: each file's class is
   * the name of the folder it is in, classes are labelled by their place in sorted order, and the
   * files are those with an image extension, in sorted order within each class — the rule and order
   * of {@link ImageShardWriter#writeFolder} ({@link EncodedImages#nameOrder()}, {@link
   * EncodedImages#isImageFileName}), so the set equals the one {@code writeFolder} writes from the
   * same folder. List the files of the class folders directly under the root (as {@code writeFolder}
   * reads them: a glob of the class folders' files, or {@code recursiveFileLookup} over a root with
   * one level of folders); Spark's listing leaves out names that start with {@code _} or {@code .}, and a
   * class folder without image files is not seen (where {@code writeFolder} refuses it). Besides the
   * writing job, one job lists the classes (the paths only, not the contents) and the sort samples
   * the keys.
   *
   * @param images the set's columns and files ({@link ImageShardWriter.Builder#labelWidth} 1)
   * @return the shard set written
   * @throws IllegalArgumentException if the DataFrame has no {@code path} string and {@code content}
   *     binary columns or holds no image file; if the writer's {@code labelWidth} is not 1; if the
   *     directory holds a shard set already
   * @throws IllegalStateException if {@code spark.speculation} is on
   * @throws SparkSampleException naming the file whose content is empty, or that is in no folder
   */
  public static ShardSet writeClassFolders(ImageShardWriter images, Dataset<Row> files, String directory) {
    Objects.requireNonNull(images, "images");
    Objects.requireNonNull(directory, "directory");
    if (images.labelWidth() != 1) {
      throw new IllegalArgumentException("a class folder gives one label per image; the writer's labelWidth is "
          + images.labelWidth());
    }
    require(files.schema(), PATH, DataTypes.StringType, "binaryFile's path");
    require(files.schema(), CONTENT, DataTypes.BinaryType, "binaryFile's content");
    // The classes, from the paths alone: binaryFile does not read a file's content unless it is selected.
    List<String> classes = new ArrayList<>(SparkSampleException.action(() -> files.select(PATH).as(Encoders.STRING())
        .filter((FilterFunction<String>) p -> EncodedImages.isImageFileName(fileName(p)))
        .map((MapFunction<String, String>) SparkImageShards::className, Encoders.STRING())
        .distinct().collectAsList()));
    if (classes.isEmpty()) {
      throw new IllegalArgumentException("the DataFrame holds no image file (a name ending in .jpg, .jpeg, .png, .bmp,"
          + " .tif, .tiff, .webp, .ppm, .pgm, .pbm or .jp2); expected files <root>/<class>/<image>");
    }
    classes.sort(EncodedImages.nameOrder());
    java.util.HashMap<String, Integer> labels = new java.util.HashMap<>();
    for (String c : classes) {
      labels.put(c, labels.size());
    }
    UserDefinedFunction isImage = functions.udf((UDF1<String, Boolean>) p -> EncodedImages.isImageFileName(fileName(p)),
        DataTypes.BooleanType);
    UserDefinedFunction label = functions.udf((UDF1<String, Integer>) p -> labels.get(className(p)),
        DataTypes.IntegerType);
    UserDefinedFunction name = functions.udf((UDF1<String, String>) SparkImageShards::fileName, DataTypes.StringType);
    Column path = functions.col(PATH);
    // Spark orders strings by their UTF-8 bytes, unsigned: EncodedImages.nameOrder(), writeFolder's order of files.
    Dataset<Row> sorted = files.filter(isImage.apply(path))
        .select(functions.col(CONTENT), label.apply(path).as(LABEL), name.apply(path).as(NAME), path)
        .orderBy(functions.col(LABEL), functions.col(NAME), path);
    return write(images, sorted.select(functions.col(CONTENT), functions.col(LABEL), path), 2, directory);
  }

  /**
   * Writes the images of {@code df}, in its order (partition by partition; sort it first, {@code
   * df.orderBy(...)}, for an order that does not depend on how the input was read): each row's
   * encoded image (JPEG, PNG) from {@code imageColumn} and its labels from {@code labelColumn},
   * either a number ({@code tinyint} to {@code double}, one label, stored as a float) or an {@code
   * array<float>} of the writer's {@code labelWidth} (packed labels, as a {@code .rec}'s). One job.
   *
   * @return the shard set written
   * @throws IllegalArgumentException naming a column that is missing or of another type, or a label
   *     column that does not fit the writer's {@code labelWidth}; if the DataFrame is empty or the
   *     directory holds a shard set already
   * @throws IllegalStateException if {@code spark.speculation} is on
   * @throws SparkSampleException naming the row (its place in its partition) whose image is null or
   *     empty, or whose labels are null or of another count
   */
  public static ShardSet write(ImageShardWriter images, Dataset<Row> df, String imageColumn, String labelColumn,
      String directory) {
    Objects.requireNonNull(images, "images");
    Objects.requireNonNull(directory, "directory");
    require(df.schema(), imageColumn, DataTypes.BinaryType, "the encoded images");
    DataType labelType = type(df.schema(), labelColumn);
    boolean packed = labelType instanceof ArrayType a && a.elementType().equals(DataTypes.FloatType);
    boolean number = Arrays.asList(DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType, DataTypes.LongType,
        DataTypes.FloatType, DataTypes.DoubleType).contains(labelType);
    if (!packed && !number) {
      throw new IllegalArgumentException("label column '" + labelColumn + "' has type " + labelType.simpleString()
          + ", expected a number (tinyint .. double) or array<float> (cast it first)");
    }
    if (number && images.labelWidth() != 1) {
      throw new IllegalArgumentException("label column '" + labelColumn + "' holds one label per image; the writer's"
          + " labelWidth is " + images.labelWidth() + " (give an array<float> column of " + images.labelWidth() + ")");
    }
    return write(images, df.select(functions.col(imageColumn), functions.col(labelColumn)), -1, directory);
  }

  /**
   * The job: each partition of {@code rows} (image, labels[, the path that names a row]) is one
   * segment of the set, in partition order.
   *
   * @param pathAt the column naming a row (a file's path), or -1 to name it by its place in its partition
   */
  private static ShardSet write(ImageShardWriter images, Dataset<Row> rows, int pathAt, String directory) {
    ShardJobs.refuseSpeculation(rows.sparkSession(), "SparkImageShards");
    // Fails here, on the driver, for a directory that holds a shard set already or cannot be reached.
    images.writeSegment(Collections.emptyIterator(), "no images", directory, 0);
    String image = rows.schema().fields()[0].name();
    String label = rows.schema().fields()[1].name();
    int width = images.labelWidth();
    List<ShardWriter.WrittenSegment> segments = SparkSampleException.action(() -> rows.javaRDD()
        .mapPartitionsWithIndex((p, it) -> List.of(images.writeSegment(new RowImages(it, p, pathAt, image, label, width),
            "partition " + p + " of the DataFrame", directory, p)).iterator(), true)
        .collect());
    long total = 0;
    for (ShardWriter.WrittenSegment s : segments) {
      total += s.samples();
    }
    if (total == 0) {
      throw new IllegalArgumentException("no images: the DataFrame is empty");
    }
    return images.commit(directory, segments);
  }

  private static DataType type(StructType schema, String column) {
    Objects.requireNonNull(column, "column");
    for (StructField f : schema.fields()) {
      if (f.name().equals(column)) {
        return f.dataType();
      }
    }
    throw new IllegalArgumentException("column '" + column + "' is not in the DataFrame; it has columns "
        + Arrays.toString(schema.fieldNames()));
  }

  private static void require(StructType schema, String column, DataType expected, String what) {
    DataType found = type(schema, column);
    if (!found.equals(expected)) {
      throw new IllegalArgumentException("column '" + column + "' has type " + found.simpleString() + ", expected "
          + expected.simpleString() + " (" + what + ")");
    }
  }

  /** The file name: the path's last part. */
  static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * The class: the name of the folder the file is in.
   *
   * @throws SparkSampleException naming the path if it has no folder
   */
  static String className(String path) {
    int slash = path.lastIndexOf('/');
    int before = slash > 0 ? path.lastIndexOf('/', slash - 1) : -1;
    String folder = slash > 0 ? path.substring(before + 1, slash) : "";
    if (folder.isEmpty() || folder.endsWith(":")) {
      throw new SparkSampleException("file " + path, -1, new IllegalArgumentException("it is not in a class folder;"
          + " expected <root>/<class>/<image>"));
    }
    return folder;
  }

  /** A partition's rows as encoded images, each checked and named by its path or its place. */
  private static final class RowImages implements Iterator<EncodedImages.Image> {
    private final Iterator<Row> rows;
    private final int partition;
    private final int pathAt;
    private final String image;
    private final String label;
    private final int width;
    private long row = -1;

    RowImages(Iterator<Row> rows, int partition, int pathAt, String image, String label, int width) {
      this.rows = rows;
      this.partition = partition;
      this.pathAt = pathAt;
      this.image = image;
      this.label = label;
      this.width = width;
    }

    @Override
    public boolean hasNext() {
      return rows.hasNext();
    }

    @Override
    public EncodedImages.Image next() {
      Row r = rows.next();
      row++;
      String where = pathAt >= 0 ? "file " + r.getString(pathAt) : "row " + row + " of partition " + partition;
      if (r.isNullAt(0) || ((byte[]) r.get(0)).length == 0) {
        throw new SparkSampleException(where, -1, new IllegalArgumentException("image column '" + image + "' is "
            + (r.isNullAt(0) ? "null" : "empty") + "; expected an encoded image (JPEG, PNG)"));
      }
      return new EncodedImages.Image((byte[]) r.get(0), labels(r, where));
    }

    private float[] labels(Row r, String where) {
      if (r.isNullAt(1)) {
        throw new SparkSampleException(where, -1, new IllegalArgumentException("label column '" + label + "' is null"));
      }
      Object v = r.get(1);
      if (v instanceof Number n) {
        return new float[] {n.floatValue()};
      }
      List<Object> values = r.getList(1);
      if (values.size() != width) {
        throw new SparkSampleException(where, -1, new IllegalArgumentException("label column '" + label + "' holds "
            + values.size() + " labels, the writer's labelWidth is " + width));
      }
      float[] out = new float[width];
      for (int i = 0; i < width; i++) {
        Object x = values.get(i);
        if (x == null) {
          throw new SparkSampleException(where, -1, new IllegalArgumentException("label column '" + label + "' holds a"
              + " null at " + i));
        }
        out[i] = (Float) x;
      }
      return out;
    }
  }
}
