package dev.minibatch.runtime.io.image;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Where encoded images and their labels come from: the records of a {@code .rec} file ({@link
 * RecordImages}) or the files of a folder ({@link FolderImages}). {@link #read} runs on reader
 * threads at once, each with its own {@link Encoded}.
 */
abstract class ImageSource implements AutoCloseable {
  /** The number of images. */
  abstract int size();

  /** The number of labels per image. */
  abstract int labelWidth();

  /** What the source is, for messages: the record file or the folder. */
  abstract String name();

  /** The class names of a folder source, in label order; empty for records. */
  List<String> classes() {
    return List.of();
  }

  /**
   * Reads image {@code i}'s encoded bytes into {@code into} and its labels into {@code
   * into.labels}.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException naming the file, the record and its offset
   *     for bad content
   */
  abstract void read(int i, Encoded into);

  /**
   * An error about image {@code i} (just read into {@code read}): for records, naming the file,
   * the record, its offset and the image's id; for folders, the image's file.
   */
  abstract dev.minibatch.runtime.io.FileFormatException error(int i, Encoded read, String message,
      @org.jspecify.annotations.Nullable Throwable cause);

  @Override
  public abstract void close();

  /** One reader thread's buffer of encoded bytes and labels, reused from image to image. */
  static final class Encoded {
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
    /** Where the encoded image starts in {@link #buffer} and how long it is. */
    int offset;
    int length;
    /** The image's id (record header) or index (folder). */
    long id;
    final float[] labels;

    Encoded(int labelWidth) {
      this.labels = new float[labelWidth];
    }
  }
}
