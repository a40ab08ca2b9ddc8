package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.Role;
import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.runtime.io.image.ImageOutput;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.shape.Shape;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Writes shard sets of encoded images: each sample's JPEG or PNG bytes as they are, in a {@code
 * binary} column whose field records the image the batch will hold (its shape, layout, channel order
 * and dtype: {@code data DATA FLOAT32 [3,224,224] NCHW encoding=IMAGE_RGB}), and its labels in a
 * FLOAT32 column ({@code softmax_label LABEL FLOAT32 [] N}, or {@code [labelWidth]}): the arrays,
 * names and label values {@link ImageRecordProvider} gives. {@link ShardProvider} decodes and
 * augments them on its reader threads as {@link ImageRecordProvider} does.
 *
 * <pre>{@code
 * ImageShardWriter images = ImageShardWriter.builder().dataShape(3, 224, 224).build();
 * ShardSet fromFolder = images.writeFolder(Path.of("photos"), "hdfs://nn/data/photos");
 * ShardSet fromRec = images.writeRecordIO(Path.of("train.rec"), Path.of("train.idx"), "hdfs://nn/data/train");
 * }</pre>
 *
 * <p>The images are stored unchecked: a corrupt one is found, and named, when it is read (the
 * provider's bad-sample policy then applies). Files, checksums and the atomic commit are {@link
 * ShardWriter}'s.
 *
 * <p>Several writers in parallel (Spark's executors: {@code dev.minibatch.spark.SparkImageShards})
 * each write a segment of the images with {@link #writeSegment}, and one process {@link #commit
 * commits} them, as {@link ShardWriter#segment} and {@link ShardWriter#commit} do for providers. A
 * writer is {@link Serializable} (as its settings), so a task can take it to its executor.
 */
public final class ImageShardWriter implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Column data;
  private final String labelName;
  private final int labelWidth;
  private final ShardWriter writer;
  /** The settings this writer was built from: its serial form. */
  private final transient Settings settings;

  private ImageShardWriter(Builder b, ImageOutput out) {
    this.data = new Column(new SampleSchema.Field(b.dataName, Role.DATA, out.shape(), out.dtype(), out.layout(), 0,
        SampleSchema.Encoding.image(out.channels())));
    this.labelName = b.labelName;
    this.labelWidth = b.labelWidth;
    this.writer = b.writer;
    this.settings = new Settings(b.channels, b.height, b.width, b.channelsLast, b.dtype, b.dataName, b.labelName,
        b.labelWidth, b.writer);
  }

  /** A builder; {@link Builder#dataShape} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Writes the images of a folder with one sub-folder per class (MXNet's im2rec, torchvision's
   * ImageFolder): classes are the sub-folders in sorted order labelled 0, 1, ..., images the files
   * with an image extension in each, in sorted order; the set's order is that order. The labels are
   * those {@link ImageRecordProvider.Builder#imageFolder(Path)} gives (one per image).
   *
   * @throws IllegalArgumentException if {@code labelWidth} is not 1, or as {@link ShardWriter#write}
   * @throws dev.minibatch.runtime.io.FileFormatException naming the folder if it has no class
   *     folder, or one without images
   */
  public ShardSet writeFolder(Path root, String directory) {
    if (labelWidth != 1) {
      throw new IllegalArgumentException("an image folder gives one label per image; labelWidth is " + labelWidth);
    }
    try (EncodedImages images = EncodedImages.folder(root)) {
      return write(images, directory);
    }
  }

  /**
   * Writes the image records of an MXNet RecordIO file (found through its {@code .idx} when given,
   * in the index's order), each with {@code labelWidth} labels: the labels packed in the record (an
   * object-detection record's whole label vector), or the header's one when {@code labelWidth} is 1,
   * as {@link ImageRecordProvider.Builder#pathImgrec(Path)} reads them.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException naming the file and record for a corrupt
   *     record file or index, one without records, or a record whose label count is not {@code
   *     labelWidth}
   */
  public ShardSet writeRecordIO(Path rec, @Nullable Path idx, String directory) {
    try (EncodedImages images = EncodedImages.records(rec, idx, labelWidth)) {
      return write(images, directory);
    }
  }

  /**
   * Writes {@code images} in their order: each an encoded image and its {@code labelWidth} labels.
   * The iterable is read once.
   *
   * @throws IllegalArgumentException naming the image (its place in the iteration) with no bytes or
   *     another number of labels, or as {@link ShardWriter#write}
   */
  public ShardSet write(Iterable<EncodedImages.Image> images, String directory) {
    return writer.write(columns(), () -> new ImageRows(images.iterator(), "the iterable"), directory);
  }

  /**
   * Writes {@code images} in their order as segment {@code segment} of a shard set written in
   * parallel into {@code directory} ({@link ShardWriter#segment}: files {@code
   * part-PPPPP-FFFFF.parquet}, those of an earlier attempt of the same segment replaced), for {@link
   * #commit}. No image writes nothing (and checks only that the directory holds no shard set yet).
   *
   * @param source what the images are, for errors ("partition 3")
   * @return what the segment wrote
   * @throws IllegalArgumentException naming the image (its place in {@code source}) with no bytes or
   *     another number of labels, or as {@link ShardWriter#segment}
   */
  public ShardWriter.WrittenSegment writeSegment(Iterator<EncodedImages.Image> images, String source, String directory,
      int segment) {
    try (ShardWriter.Segment out = writer.segment(directory, segment)) {
      ImageRows rows = new ImageRows(images, source);
      out.write(columns(), () -> rows);
      return out.finish();
    }
  }

  /**
   * Commits the segments {@link #writeSegment} wrote into {@code directory}, as {@link
   * ShardWriter#commit}.
   */
  public ShardSet commit(String directory, List<ShardWriter.WrittenSegment> segmentsInOrder) {
    return writer.commit(directory, segmentsInOrder);
  }

  private ShardSet write(EncodedImages images, String directory) {
    Iterator<EncodedImages.Image> all = new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < images.size();
      }

      @Override
      public EncodedImages.Image next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return images.read(next++);
      }
    };
    return writer.write(columns(), () -> new ImageRows(all, images.name()), directory);
  }

  /** Labels per image: the label column's width ({@link Builder#labelWidth}). */
  public int labelWidth() {
    return labelWidth;
  }

  /** The set's columns: the encoded images, then the labels. */
  List<Column> columns() {
    Shape labels = labelWidth == 1 ? Shape.scalar() : Shape.of(labelWidth);
    return List.of(data, Column.of(labelName, Role.LABEL, labels, DType.FLOAT32));
  }

  /** The rows of {@code images}: an image's bytes, then its labels as little-endian floats. */
  private final class ImageRows implements Iterator<ShardWriter.Row>, ShardWriter.Row {
    private final Iterator<EncodedImages.Image> images;
    private final String source;
    private final ByteBuffer labels = ByteBuffer.allocate(4 * labelWidth).order(ByteOrder.LITTLE_ENDIAN);
    private byte[] image = new byte[0];
    private int index = -1;

    ImageRows(Iterator<EncodedImages.Image> images, String source) {
      this.images = images;
      this.source = source;
    }

    @Override
    public boolean hasNext() {
      return images.hasNext();
    }

    @Override
    public ShardWriter.Row next() {
      EncodedImages.Image i = images.next();
      index++;
      if (i.bytes().length == 0) {
        throw new IllegalArgumentException("image " + index + " of " + source + " has no bytes; expected an encoded"
            + " image (JPEG, PNG)");
      }
      if (i.labels().length != labelWidth) {
        throw new IllegalArgumentException("image " + index + " of " + source + " has " + i.labels().length + " label"
            + (i.labels().length == 1 ? "" : "s") + ", labelWidth is " + labelWidth);
      }
      image = i.bytes();
      labels.clear();
      for (float l : i.labels()) {
        labels.putFloat(l);
      }
      return this;
    }

    @Override
    public byte[] bytes(int column) {
      return column == 0 ? image : labels.array();
    }

    @Override
    public int length(int column) {
      return column == 0 ? image.length : labels.capacity();
    }
  }

  private Object writeReplace() {
    return settings;
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("an ImageShardWriter is read from its serial form");
  }

  /** The serial form: the builder's settings, built again where the writer is read. */
  private record Settings(int channels, int height, int width, boolean channelsLast, DType dtype, String dataName,
      String labelName, int labelWidth, ShardWriter writer) implements Serializable {
    private static final long serialVersionUID = 1L;

    private Object readResolve() {
      return builder().dataShape(channels, height, width).channelsLast(channelsLast).dtype(dtype).dataName(dataName)
          .labelName(labelName).labelWidth(labelWidth).writer(writer).build();
    }
  }

  /**
   * Settings of an {@link ImageShardWriter}: the image the batch will hold ({@link #dataShape},
   * {@link #channelsLast}, {@link #dtype}), the columns' names and label width ({@link
   * ImageRecordProvider}'s defaults), and the {@link ShardWriter} (files, compression, file system).
   */
  public static final class Builder {
    private int channels;
    private int height;
    private int width;
    private boolean channelsLast;
    private DType dtype = DType.FLOAT32;
    private String dataName = ImageRecordProvider.DATA_NAME;
    private String labelName = ImageRecordProvider.LABEL_NAME;
    private int labelWidth = 1;
    private ShardWriter writer = ShardWriter.builder().build();

    private Builder() {}

    /**
     * The decoded image each sample gives a batch: channels 1 (gray), 3 (RGB) or 4 (RGBA), height
     * and width (the reader crops and resizes to it). Required.
     */
    public Builder dataShape(int channels, int height, int width) {
      this.channels = channels;
      this.height = height;
      this.width = width;
      return this;
    }

    /** Batches of (h, w, c) images, layout NHWC, instead of (c, h, w), NCHW; default false. */
    public Builder channelsLast(boolean channelsLast) {
      this.channelsLast = channelsLast;
      return this;
    }

    /** FLOAT32 (normalised; the default) or UINT8 (raw pixels) in the batch. */
    public Builder dtype(DType dtype) {
      this.dtype = ImageOutput.requireImageType(Objects.requireNonNull(dtype, "dtype"));
      return this;
    }

    /** The image column's name; default {@code data} (MXNet's). */
    public Builder dataName(String name) {
      this.dataName = Objects.requireNonNull(name, "name");
      return this;
    }

    /** The label column's name; default {@code softmax_label} (MXNet's). */
    public Builder labelName(String name) {
      this.labelName = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Labels per image (MXNet {@code label_width}): a scalar column for 1 (the default), else a vector. */
    public Builder labelWidth(int labelWidth) {
      this.labelWidth = dev.minibatch.runtime.check.Check.atLeast("labelWidth", labelWidth, 1);
      return this;
    }

    /** The writer of the files (samples per file, compression, Hadoop configuration); default {@code ShardWriter.builder().build()}. */
    public Builder writer(ShardWriter writer) {
      this.writer = Objects.requireNonNull(writer, "writer");
      return this;
    }

    /**
     * The writer.
     *
     * @throws IllegalStateException without {@link #dataShape}
     * @throws IllegalArgumentException if the shape, layout and dtype are not an image's (1, 3 or 4
     *     channels, positive sides, FLOAT32 or UINT8), or the names are equal
     */
    public ImageShardWriter build() {
      ImageOutput out = ImageOutput.of("ImageShardWriter", channels, height, width, channelsLast, dtype);
      if (dataName.equals(labelName)) {
        throw new IllegalArgumentException("ImageShardWriter: the data and label columns are both named '" + dataName
            + "'");
      }
      ImageShardWriter w = new ImageShardWriter(this, out);
      w.columns().forEach(Column::rowBytes);
      return w;
    }
  }
}
