package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordProblem;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
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
  private final @Nullable String listPath;
  private final @Nullable Map<Long, float[]> list;

  /**
   * Images in {@code file}, opened with the index {@code index} (its path or location, or null),
   * labelled from the image list {@code list} read from {@code listPath} (or both null): checks at once that there is a record (and a list line), and that the label width fits
   * record 0 (or the list's first line), so a file read with the wrong setting fails at build time
   * with the setting that fits, not in the first batch.
   *
   * @throws FileFormatException naming the file that holds no records or list lines, the list line
   *     or record 0 whose label count is not {@code labelWidth}, or a malformed record 0
   */
  RecordImages(RecordIOFile file, @Nullable String index, int labelWidth, @Nullable String listPath,
      @Nullable ImageList imageList) {
    this.file = file;
    this.name = file.location();
    this.labelWidth = labelWidth;
    this.listPath = listPath;
    requireRecords(file, index);
    if (listPath == null || imageList == null) {
      this.list = null;
    } else {
      Map<Long, float[]> m = new HashMap<>();
      for (ImageList.Entry e : imageList.entries()) {
        m.put(e.index(), e.labels());
      }
      if (m.isEmpty()) {
        throw new FileFormatException(listPath, "lists no images; expected an 'index<TAB>label...<TAB>path'"
            + " line for each image id of " + name);
      }
      this.list = m;
    }
    checkFirstRecord();
  }

  /**
   * Fails unless {@code rec} holds a record, naming the file that yielded none: the index when
   * there is one, else the record file.
   *
   * @throws FileFormatException if there is no record
   */
  static void requireRecords(RecordIOFile rec, @Nullable Object index) {
    if (rec.records() > 0) {
      return;
    }
    String file = rec.location();
    if (index != null) {
      throw new FileFormatException(index.toString(), "lists no records: it has no key<TAB>offset line; expected one "
          + "line per record of " + file + " (" + rec.size() + " bytes)");
    }
    if (rec.size() == 0) {
      throw new FileFormatException(file, "is empty (0 bytes); expected RecordIO image records");
    }
    List<RecordProblem> skipped = rec.problems();
    if (!skipped.isEmpty()) {
      long bytes = skipped.stream().mapToLong(RecordProblem::skippedBytes).sum();
      RecordProblem first = skipped.get(0);
      throw new FileFormatException(file, "holds no intact record: skipCorrupt skipped " + skipped.size() + " corrupt "
          + "stretch" + (skipped.size() == 1 ? "" : "es") + " (" + bytes + " of " + rec.size() + " bytes); the first, "
          + "at offset " + first.offset() + ": " + first.message());
    }
    throw new FileFormatException(file, "holds no records");
  }

  /**
   * Checks record 0 and, when the labels are the records', that its label count is the label
   * width: what the setting must be.
   */
  private void checkFirstRecord() {
    ByteBuffer p = file.read(0, null);
    ImageRecord.check(p, name, 0, file.offset(0));
    if (list != null) {
      return;
    }
    int flag = ImageRecord.flag(p);
    String at = ImageRecord.location(0, file.offset(0), ImageRecord.id(p)) + ": ";
    if (flag > 0 && flag != labelWidth) {
      throw new FileFormatException(name, at + "the record packs " + flag + " labels but labelWidth is " + labelWidth
          + "; set labelWidth(" + flag + ") to read them, or give pathImglist with " + labelWidth + " label"
          + (labelWidth == 1 ? "" : "s") + " per image");
    }
    if (flag == 0 && labelWidth != 1) {
      throw new FileFormatException(name, at + "the record holds one label in its header but labelWidth is "
          + labelWidth + "; set labelWidth(1) to read it, or give pathImglist with " + labelWidth + " labels per image");
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
        throw new FileFormatException(name, ImageRecord.location(i, file.offset(i), into.id)
            + ": the record packs " + flag + " labels but labelWidth is " + labelWidth);
      }
      for (int k = 0; k < flag; k++) {
        into.labels[k] = ImageRecord.label(p, k);
      }
    } else {
      if (labelWidth != 1) {
        throw new FileFormatException(name, ImageRecord.location(i, file.offset(i), into.id)
            + ": the record holds one label in its header but labelWidth is " + labelWidth
            + "; pack the records with " + labelWidth + " labels or give pathImglist");
      }
      into.labels[0] = ImageRecord.headerLabel(p);
    }
  }

  @Override
  FileFormatException error(int i, Encoded read, String message, @Nullable Throwable cause) {
    return new FileFormatException(name, ImageRecord.location(i, file.offset(i), read.id) + ": " + message, cause);
  }

  @Override
  public void close() {
    file.close();
  }
}
