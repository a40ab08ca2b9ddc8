package dev.minibatch.runtime.io.recordio;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One image record (MXNet's {@code recordio.pack} / {@code unpack}): a 24-byte header {@code
 * IRHeader} (uint32 {@code flag}, float32 {@code label}, uint64 {@code id}, uint64 {@code id2},
 * little-endian), then {@code flag} float32 labels when {@code flag > 0}, then the encoded image
 * (JPEG, PNG, or anything OpenCV decodes).
 *
 * <p>The record form copies; the static accessors read a payload in place, without allocating, for
 * the loaders' hot path. {@link #check} validates a payload before the accessors are used on it.
 *
 * @param id the image's id (im2rec writes the {@code .lst} index)
 * @param id2 a second id, 0 unless a writer sets it
 * @param label the header's single label; 0 when the record carries {@code labels}
 * @param labels the labels stored after the header (MXNet sets {@code flag} to their count); empty
 *     for a record with one label in the header
 * @param image the encoded image bytes
 */
public record ImageRecord(long id, long id2, float label, float[] labels, byte[] image) {
  /** The header's size in bytes. */
  public static final int HEADER_BYTES = 24;

  /** Copies the arrays. */
  public ImageRecord {
    labels = labels.clone();
    image = image.clone();
  }

  /** A record with one label in the header (flag 0). */
  public static ImageRecord of(long id, float label, byte[] image) {
    return new ImageRecord(id, 0, label, new float[0], image);
  }

  /** A record with {@code labels.length} labels after the header (flag = their count, label 0). */
  public static ImageRecord of(long id, float[] labels, byte[] image) {
    return new ImageRecord(id, 0, 0, labels, image);
  }

  /** The header's flag: the number of labels after it. */
  public int flag() {
    return labels.length;
  }

  /** The labels as a reader with label width {@code labels.length}, or 1, sees them. */
  public float[] labelVector() {
    return labels.length > 0 ? labels.clone() : new float[] {label};
  }

  /** The record's payload, ready for {@link RecordIOWriter#write(byte[])}. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + 4 * labels.length + image.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(labels.length).putFloat(label).putLong(id).putLong(id2);
    for (float l : labels) {
      b.putFloat(l);
    }
    b.put(image);
    return b.array();
  }

  /**
   * Parses a payload (from its position to its limit), copying labels and image.
   *
   * @throws FileFormatException as {@link #check}, naming the file as "record payload"
   */
  public static ImageRecord parse(ByteBuffer payload) {
    ByteBuffer p = payload.slice().order(ByteOrder.LITTLE_ENDIAN);
    check(p, "record payload", 0, 0);
    float[] labels = new float[flag(p)];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = label(p, i);
    }
    int from = imageOffset(p);
    byte[] image = new byte[p.limit() - from];
    p.get(from, image);
    return new ImageRecord(id(p), p.getLong(16), headerLabel(p), labels, image);
  }

  /**
   * Checks that {@code payload} (position 0, little-endian) holds a header, its labels and a
   * non-empty image.
   *
   * @throws FileFormatException naming {@code file}, the record and its offset
   */
  public static void check(ByteBuffer payload, String file, int record, long offset) {
    int n = payload.limit();
    if (n < HEADER_BYTES) {
      throw new FileFormatException(file, "record " + record + " at offset " + offset + ": " + n
          + " bytes; an image record needs a 24-byte header");
    }
    int flag = payload.getInt(0);
    long need = HEADER_BYTES + 4L * Integer.toUnsignedLong(flag);
    if (flag < 0 || need >= n) {
      throw new FileFormatException(file, location(record, offset, payload.getLong(8)) + ": the header's flag " + Integer.toUnsignedString(flag) + " announces "
          + Integer.toUnsignedString(flag) + " labels (" + (need - HEADER_BYTES) + " bytes) but the record has "
          + (n - HEADER_BYTES) + " bytes after its header, and an image must follow");
    }
  }

  /**
   * How every message names record {@code record} of a record file, which starts at byte {@code
   * offset} and holds image {@code id}: {@code "record 5 at offset 268604 (image id 5)"}. The
   * runtime's readers and the tools that validate or read a file say it the same way.
   */
  public static String location(int record, long offset, long id) {
    return "record " + record + " at offset " + offset + " (image id " + id + ")";
  }

  /** The header's flag of a checked payload: the number of labels after the header. */
  public static int flag(ByteBuffer payload) {
    return payload.getInt(0);
  }

  /** The header's label of a checked payload. */
  public static float headerLabel(ByteBuffer payload) {
    return payload.getFloat(4);
  }

  /** The header's id of a checked payload. */
  public static long id(ByteBuffer payload) {
    return payload.getLong(8);
  }

  /** Label {@code i} of the {@code flag} labels after the header of a checked payload. */
  public static float label(ByteBuffer payload, int i) {
    return payload.getFloat(HEADER_BYTES + 4 * i);
  }

  /** Where the encoded image starts in a checked payload. */
  public static int imageOffset(ByteBuffer payload) {
    return HEADER_BYTES + 4 * flag(payload);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ImageRecord r && id == r.id && id2 == r.id2 && Float.compare(label, r.label) == 0
        && Arrays.equals(labels, r.labels) && Arrays.equals(image, r.image);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(id) * 31 + Arrays.hashCode(image);
  }

  @Override
  public String toString() {
    return "ImageRecord[id=" + id + ", id2=" + id2 + ", label=" + label + ", labels=" + Arrays.toString(labels)
        + ", image=" + image.length + " bytes]";
  }
}
