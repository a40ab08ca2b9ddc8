package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Images in a RecordIO file: each record an image record (header, labels, encoded image). Labels
 * come, as in MXNet's ImageRecordIter, from the image list by image id when there is one; else from
 * the record's packed labels, whose count must equal the label width; else from the header's one
 * label, when the label width is 1.
 */
final class RecordImages extends ImageSource {
  private final RecordIOFile file;
  private final String name;
  private final int labelWidth;
  private final @Nullable Path listPath;
  private final @Nullable Map<Long, float[]> list;

  RecordImages(RecordIOFile file, int labelWidth, @Nullable Path listPath) {
    this.file = file;
    this.name = file.path().toString();
    this.labelWidth = labelWidth;
    this.listPath = listPath;
    if (listPath == null) {
      this.list = null;
    } else {
      Map<Long, float[]> m = new HashMap<>();
      for (ImageList.Entry e : ImageList.read(listPath).entries()) {
        float[] labels = e.labels();
        if (labels.length != labelWidth) {
          throw new FileFormatException(listPath.toString(), "image index " + e.index() + " has " + labels.length
              + " label" + (labels.length == 1 ? "" : "s") + " but labelWidth is " + labelWidth);
        }
        m.put(e.index(), labels);
      }
      this.list = m;
    }
  }

  @Override
  int size() {
    return file.records();
  }

  @Override
  int labelWidth() {
    return labelWidth;
  }

  @Override
  String name() {
    return name;
  }

  @Override
  void read(int i, Encoded into) {
    ByteBuffer p = file.read(i, into.buffer);
    into.buffer = p;
    ImageRecord.check(p, name, i, file.offset(i));
    into.id = ImageRecord.id(p);
    into.offset = ImageRecord.imageOffset(p);
    into.length = p.limit() - into.offset;
    Map<Long, float[]> m = list;
    int flag = ImageRecord.flag(p);
    if (m != null) {
      float[] labels = m.get(into.id);
      if (labels == null) {
        throw new FileFormatException(String.valueOf(listPath), "has no line for image index " + into.id + " (" + name
            + ": record " + i + " at offset " + file.offset(i) + ")");
      }
      System.arraycopy(labels, 0, into.labels, 0, labelWidth);
    } else if (flag > 0) {
      if (flag != labelWidth) {
        throw new FileFormatException(name, "record " + i + " at offset " + file.offset(i) + " (image id " + into.id
            + "): the record packs " + flag + " labels but labelWidth is " + labelWidth);
      }
      for (int k = 0; k < flag; k++) {
        into.labels[k] = ImageRecord.label(p, k);
      }
    } else {
      if (labelWidth != 1) {
        throw new FileFormatException(name, "record " + i + " at offset " + file.offset(i) + " (image id " + into.id
            + "): the record holds one label in its header but labelWidth is " + labelWidth
            + "; pack the records with " + labelWidth + " labels or give pathImglist");
      }
      into.labels[0] = ImageRecord.headerLabel(p);
    }
  }

  @Override
  FileFormatException error(int i, Encoded read, String message, @Nullable Throwable cause) {
    return new FileFormatException(name, "record " + i + " at offset " + file.offset(i) + " (image id " + read.id
        + "): " + message, cause);
  }

  @Override
  public void close() {
    file.close();
  }
}
