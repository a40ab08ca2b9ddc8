package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.io.recordio.RecordIOFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The encoded images and labels {@link ImageRecordProvider} reads, one by one and undecoded: the
 * images of a folder with one sub-folder per class ({@link #folder}, labelled as {@link
 * ImageRecordProvider.Builder#imageFolder} labels them), or the records of an MXNet RecordIO file
 * ({@link #records}, labelled as {@link ImageRecordProvider.Builder#pathImgrec} with {@code
 * labelWidth} labels them: the packed labels, or the header's one). For converting them to another
 * store, such as a shard set. Not thread-safe.
 */
public final class EncodedImages implements AutoCloseable {
  private final ImageSource source;
  private final ImageSource.Encoded encoded;

  private EncodedImages(ImageSource source) {
    this.source = source;
    this.encoded = new ImageSource.Encoded(source.labelWidth());
  }

  /**
   * The images under {@code root}: one sub-folder per class, classes in sorted order labelled 0, 1,
   * ..., files with an image extension in sorted order.
   *
   * @throws IllegalArgumentException if {@code root} is not a directory
   * @throws dev.minibatch.runtime.io.FileFormatException naming {@code root} if it has no class
   *     folder, or one without images
   */
  public static EncodedImages folder(Path root) {
    return new EncodedImages(new FolderImages(root));
  }

  /**
   * The image records of {@code rec} (found through {@code idx} when given, in its order), each with
   * {@code labelWidth} labels.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException naming the file for a corrupt record file or
   *     index, one without records, or a record 0 whose label count is not {@code labelWidth}
   */
  public static EncodedImages records(Path rec, @Nullable Path idx, int labelWidth) {
    if (labelWidth < 1) {
      throw new IllegalArgumentException("labelWidth must be >= 1, got " + labelWidth);
    }
    RecordIOFile file = RecordIOFile.builder(rec).index(idx).open();
    try {
      return new EncodedImages(new RecordImages(file, idx == null ? null : idx.toString(), labelWidth, null, null));
    } catch (RuntimeException e) {
      file.close();
      throw e;
    }
  }

  /**
   * Whether {@link #folder} takes a file of this name as an image: its extension (case ignored) is
   * one im2rec accepts or another OpenCV decodes ({@code .jpg}, {@code .jpeg}, {@code .png}, {@code
   * .bmp}, {@code .tif}, {@code .tiff}, {@code .webp}, {@code .ppm}, {@code .pgm}, {@code .pbm},
   * {@code .jp2}). For listing a class folder elsewhere (a Spark {@code binaryFile} DataFrame) by the
   * same rule.
   */
  public static boolean isImageFileName(String fileName) {
    return FolderImages.isImage(fileName);
  }

  /**
   * The order in which {@link #folder} sorts class folders (whose place is their label) and the
   * images in each: by the names' UTF-8 bytes, unsigned (the order of a sorted directory listing on
   * Linux, and of Spark's and Parquet's strings). For labelling a class folder listed elsewhere by
   * the same rule.
   */
  public static Comparator<String> nameOrder() {
    return FolderImages.NAME_ORDER;
  }

  /** The number of images. */
  public int size() {
    return source.size();
  }

  /** The labels per image. */
  public int labelWidth() {
    return source.labelWidth();
  }

  /** A folder's class names in label order; empty for records. */
  public List<String> classes() {
    return source.classes();
  }

  /** The folder or the record file. */
  public String name() {
    return source.name();
  }

  /**
   * Image {@code i}: its encoded bytes and its labels.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException naming the file (and record) for bad content
   *     or a record without image bytes
   */
  public Image read(int i) {
    source.read(i, encoded);
    if (encoded.length <= 0) {
      throw source.error(i, encoded, "the record holds no image bytes after its header and labels", null);
    }
    byte[] bytes = new byte[encoded.length];
    ByteBuffer b = encoded.buffer;
    b.get(encoded.offset, bytes);
    return new Image(bytes, encoded.labels.clone());
  }

  @Override
  public void close() {
    source.close();
  }

  /**
   * One encoded image and its labels.
   *
   * @param bytes the encoded image (JPEG, PNG, ...)
   * @param labels its labels, {@link #labelWidth()} of them
   */
  public record Image(byte[] bytes, float[] labels) {}
}
