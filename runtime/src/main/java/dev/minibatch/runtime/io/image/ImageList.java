package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.internal.io.TextLines;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An im2rec image list ({@code .lst}): one line per image, {@code index\tlabel...\tpath}, tab
 * separated, with one or more float labels and a path relative to the images' root. MXNet's
 * ImageRecordIter reads labels from it by image index when {@code path_imglist} is set; im2rec packs
 * the images it names.
 *
 * <p>Unlike im2rec, which skips lines with fewer than three fields, a malformed line is an error
 * naming the file and line: nothing is dropped silently.
 *
 * @param entries the lines in file order
 */
record ImageList(List<Entry> entries) {
  /** Copies the list. */
  public ImageList {
    entries = List.copyOf(entries);
  }

  /**
   * One line.
   *
   * @param index the image's index (its id in the records)
   * @param labels its labels
   * @param path its path relative to the root
   */
  public record Entry(long index, float[] labels, String path) {
    /** Copies the labels. */
    public Entry {
      labels = labels.clone();
    }

    /** The labels (a copy). */
    @Override
    public float[] labels() {
      return labels.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && index == e.index && Arrays.equals(labels, e.labels) && path.equals(e.path);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(index) * 31 + path.hashCode();
    }

    @Override
    public String toString() {
      return index + "\t" + Arrays.toString(labels) + "\t" + path;
    }
  }

  /**
   * Reads a list.
   *
   * @throws FileFormatException naming the file and line for bytes that are not UTF-8, a line with
   *     fewer than three fields, an index that is not an integer, a label that is not a number, or a
   *     repeated index
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public static ImageList read(Path lst) {
    return read(lst, 0);
  }

  /**
   * Reads a list whose every line must hold {@code labelWidth} labels (any number when 0): the
   * first line's count is checked against the setting, so a mismatch says which setting fits the
   * file; a later line's against the first.
   *
   * @throws FileFormatException as {@link #read(Path)}, and naming the line whose label count
   *     differs
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public static ImageList read(Path lst, int labelWidth) {
    return read(lst.toString(), TextLines.read(lst, LINES), labelWidth);
  }

  /** What a list's lines hold, for messages. */
  static final String LINES = "'index<TAB>label...<TAB>path' lines";

  /** The list in {@code lines} of the file {@code lst} (a local path or a remote location), as {@link #read(Path, int)}. */
  static ImageList read(String lst, List<String> lines, int labelWidth) {
    List<Entry> out = new ArrayList<>(lines.size());
    Map<Long, Integer> seen = new HashMap<>();
    int firstLine = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      String where = "line " + (i + 1) + ": ";
      if (f.length < 3) {
        throw new FileFormatException(lst, where + "expected 'index<TAB>label...<TAB>path' (at least 3 "
            + "tab-separated fields), found " + f.length + " field" + (f.length == 1 ? "" : "s"));
      }
      long index;
      try {
        index = Long.parseLong(f[0].strip());
      } catch (NumberFormatException e) {
        throw new FileFormatException(lst, where + "field 1 (index): expected an integer, found '"
            + f[0] + "'");
      }
      float[] labels = new float[f.length - 2];
      if (labelWidth > 0 && labels.length != labelWidth) {
        throw new FileFormatException(lst, "line " + (i + 1) + " (image index " + index + "): "
            + labelCount(labels.length) + (firstLine == 0
                ? " but labelWidth is " + labelWidth + "; set labelWidth(" + labels.length + ") to read them"
                : " where line " + firstLine + " and labelWidth have " + labelWidth));
      }
      if (firstLine == 0) {
        firstLine = i + 1;
      }
      for (int k = 0; k < labels.length; k++) {
        try {
          labels[k] = Float.parseFloat(f[k + 1].strip());
        } catch (NumberFormatException e) {
          throw new FileFormatException(lst, where + "field " + (k + 2) + " (label " + (k + 1)
              + "): expected a number, found '" + f[k + 1] + "'");
        }
      }
      String path = f[f.length - 1].strip();
      if (path.isEmpty()) {
        throw new FileFormatException(lst, where + "field " + f.length + " (path) is empty");
      }
      Integer before = seen.put(index, i + 1);
      if (before != null) {
        throw new FileFormatException(lst, where + "index " + index + " was already on line " + before);
      }
      out.add(new Entry(index, labels, path));
    }
    return new ImageList(out);
  }

  /**
   * Writes the list as im2rec does: index, labels (as {@code %f}), path, tab separated.
   *
   * @throws UncheckedIOException naming the file if it cannot be written
   */
  public void write(Path lst) {
    try (BufferedWriter w = Files.newBufferedWriter(lst, StandardCharsets.UTF_8)) {
      for (Entry e : entries) {
        w.write(Long.toString(e.index()));
        for (float l : e.labels) {
          w.write('\t');
          w.write(String.format(java.util.Locale.ROOT, "%f", l));
        }
        w.write('\t');
        w.write(e.path());
        w.write('\n');
      }
    } catch (IOException e) {
      throw IoFailure.of("write", lst, e);
    }
  }

  /** "1 label", "9 labels". */
  private static String labelCount(int n) {
    return n + (n == 1 ? " label" : " labels");
  }

  /** The entry with image index {@code index}, or null. */
  public @Nullable Entry byIndex(long index) {
    for (Entry e : entries) {
      if (e.index() == index) {
        return e;
      }
    }
    return null;
  }

  /** Index → entry, for lookups by image id. */
  public Map<Long, Entry> byIndex() {
    Map<Long, Entry> m = new HashMap<>(entries.size() * 2);
    for (Entry e : entries) {
      m.put(e.index(), e);
    }
    return m;
  }
}
