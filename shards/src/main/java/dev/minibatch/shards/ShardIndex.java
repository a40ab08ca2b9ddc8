package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.Role;
import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shape.Shape;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The index of a shard set, the text file {@value #NAME} beside its Parquet files: the columns, each
 * a {@link SampleSchema.Field} in its one text form, then one line per shard file with its global
 * sample range, its length in bytes and its CRC-32C, in global order. Shard file {@code f} holds the
 * samples {@code [first, first + samples)}; the ranges follow each other from 0 without a gap. A
 * column with a variable axis has a {@code longest} line: the most steps a sample of the set holds
 * along it, so a reader can size its batch buffers without reading every file first.
 *
 * <pre>
 * minibatch-shards/2
 * column	image DATA FLOAT32 [28,28] NHW
 * column	label LABEL INT32 [] N
 * file	part-00000.parquet	0	10000	31462001	7a3b12c4
 * </pre>
 *
 * <p>An index whose columns include an encoded-image one ({@code encoding=IMAGE_RGB}, say) starts
 * {@code minibatch-shards/3}, so that a reader that predates the column kind refuses it by its
 * first line; an index without one is still written as version 2.
 *
 * <p>Version 1 ({@code minibatch-shards/1}) wrote a column as {@code name<TAB>role<TAB>dtype<TAB>dims}
 * ({@code -1} for the variable axis, nothing for a scalar), without layout or bound; it still reads,
 * each column under its shape's default layout and without a bound.
 *
 * @param longest per column, the longest sample's steps along its variable axis (0 for a fixed column)
 */
record ShardIndex(List<Column> columns, List<Integer> longest, List<Entry> files) {
  /** The index's file name in the shard set's directory. */
  static final String NAME = "shards.index";
  private static final String MAGIC = "minibatch-shards/2";
  /** The first line of an index with an encoded-image column: version 2 with that column kind. */
  private static final String MAGIC_V3 = "minibatch-shards/3";
  /** The first line of an index of version 1, whose columns are tab-separated fields. */
  private static final String MAGIC_V1 = "minibatch-shards/1";
  private static final String COLUMN = "column\t";

  /**
   * One shard file.
   *
   * @param name the file name, relative to the shard set's directory
   * @param first the global index of its first sample
   * @param samples its samples
   * @param bytes its length
   * @param crc32c the CRC-32C of its bytes
   */
  record Entry(String name, long first, int samples, long bytes, int crc32c) {}

  ShardIndex {
    columns = List.copyOf(columns);
    longest = List.copyOf(longest);
    files = List.copyOf(files);
    if (longest.size() != columns.size()) {
      throw new IllegalArgumentException("one longest length per column");
    }
  }

  /**
   * The index of segments written in parallel, in the set's order: segment 0's files, then segment 1's, and
   * so on, each file's {@code first} the running sum of the samples before it.
   *
   * @param segments every segment {@code 0 .. k-1}, each once, in order of segment number
   * @throws IllegalArgumentException if a segment is missing, listed twice or out of order, two segments
   *     name the same file, two segments hold different arrays, or no segment holds a sample
   */
  static ShardIndex of(List<ShardWriter.WrittenSegment> segments) {
    String columnText = null;
    int columnsOf = -1;
    Set<String> names = new HashSet<>();
    List<Entry> files = new ArrayList<>();
    int[] longest = new int[0];
    long first = 0;
    for (int i = 0; i < segments.size(); i++) {
      ShardWriter.WrittenSegment p = segments.get(i);
      if (p.segment() != i) {
        throw new IllegalArgumentException(p.segment() < i ? "segment " + p.segment() + " is listed twice or out of order (at "
            + "place " + i + "): commit takes segments 0 .. k-1, each once, in order"
            : "segment " + i + " is missing (found segment " + p.segment() + " in its place): commit takes segments 0 .. k-1,"
            + " each once, in order");
      }
      if (!p.columns().isEmpty()) {
        if (columnText == null) {
          columnText = p.columns();
          columnsOf = i;
        } else if (!columnText.equals(p.columns())) {
          throw new IllegalArgumentException("segment " + i + " holds the arrays\n" + p.columns() + "segment " + columnsOf
              + " holds\n" + columnText + "the segments of a shard set hold the same arrays");
        }
        int[] l = p.longest();
        if (longest.length == 0) {
          longest = new int[l.length];
        }
        for (int c = 0; c < l.length; c++) {
          longest[c] = Math.max(longest[c], l[c]);
        }
      }
      for (ShardWriter.WrittenFile f : p.files()) {
        if (!names.add(f.name())) {
          throw new IllegalArgumentException("file " + f.name() + " is listed twice (again by segment " + i + "): each segment"
              + " writes files of its own");
        }
        files.add(new Entry(f.name(), first, f.samples(), f.bytes(), f.crc32c()));
        first += f.samples();
      }
    }
    if (columnText == null || files.isEmpty()) {
      throw new IllegalArgumentException("the " + segments.size() + " segments hold no sample: a shard set holds at least one");
    }
    List<Column> columns = new ArrayList<>();
    for (SampleSchema.Field f : SampleSchema.parse(columnText).fields()) {
      columns.add(new Column(f));
    }
    List<Integer> longestOf = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      longestOf.add(c < longest.length && columns.get(c).variable() ? longest[c] : 0);
    }
    return new ShardIndex(columns, longestOf, files);
  }

  /** The samples of all files. */
  long samples() {
    return files.isEmpty() ? 0 : files.get(files.size() - 1).first() + files.get(files.size() - 1).samples();
  }

  /** Each file's first global sample index, in file order (ascending). */
  long[] firsts() {
    long[] out = new long[files.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = files.get(i).first();
    }
    return out;
  }

  /** The index as text. */
  String text() {
    StringBuilder sb = new StringBuilder(ShardColumns.anyEncoded(columns) ? MAGIC_V3 : MAGIC).append('\n');
    for (Column c : columns) {
      sb.append(COLUMN).append(c.field()).append('\n');
    }
    for (int c = 0; c < columns.size(); c++) {
      if (columns.get(c).variable()) {
        sb.append("longest\t").append(columns.get(c).name()).append('\t').append(longest.get(c)).append('\n');
      }
    }
    for (Entry e : files) {
      sb.append("file\t").append(e.name()).append('\t').append(e.first()).append('\t').append(e.samples()).append('\t')
          .append(e.bytes()).append('\t').append(String.format("%08x", e.crc32c())).append('\n');
    }
    return sb.toString();
  }

  /** The index of the shard set in {@code store}'s directory. */
  static ShardIndex read(ShardStore store) {
    return parse(store.readText(NAME), store.where(NAME));
  }

  /**
   * Reads an index's text.
   *
   * @param source the index's location, for messages
   * @throws FileFormatException naming the line and what was expected
   */
  static ShardIndex parse(String text, String source) {
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(MAGIC) && !lines[0].equals(MAGIC_V1) && !lines[0].equals(MAGIC_V3)) {
      throw new FileFormatException(source, "line 1: expected '" + MAGIC + "' (or '" + MAGIC_V1 + "', '" + MAGIC_V3
          + "'), found '" + shorten(lines[0]) + "': not a minibatch shard index");
    }
    boolean v1 = lines[0].equals(MAGIC_V1);
    List<Column> columns = new ArrayList<>();
    java.util.Map<String, Integer> longestOf = new java.util.HashMap<>();
    List<Entry> files = new ArrayList<>();
    long next = 0;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty()) {
        continue;
      }
      String where = "line " + (i + 1) + ": ";
      try {
        if (line.startsWith(COLUMN)) {
          if (!files.isEmpty()) {
            throw new IllegalArgumentException("a column after the first file");
          }
          String field = line.substring(COLUMN.length());
          Column c = v1 ? v1Column(field) : column(field, i + 1);
          c.rowBytes();
          for (Column other : columns) {
            if (other.name().equals(c.name())) {
              throw new IllegalArgumentException("column '" + c.name() + "' appears twice");
            }
            // A provider's arrays are its data, then its labels, and a set's columns are in that order.
            if (c.role() == Role.DATA && other.role() == Role.LABEL) {
              throw new IllegalArgumentException("data column '" + c.name() + "' after label column '" + other.name()
                  + "': an index lists the data columns first, then the labels, as the writer writes them");
            }
          }
          columns.add(c);
        } else if (line.startsWith("longest\t")) {
          String[] f = line.split("\t", -1);
          if (f.length != 3) {
            throw new IllegalArgumentException("expected 'longest<TAB>column<TAB>steps', found '" + shorten(line) + "'");
          }
          Column c = columns.stream().filter(k -> k.name().equals(f[1])).findFirst().orElseThrow(
              () -> new IllegalArgumentException("'longest' of column '" + f[1] + "', which no 'column' line before it"
                  + " names"));
          if (!c.variable()) {
            throw new IllegalArgumentException("'longest' of column '" + f[1] + "', which has no variable axis");
          }
          long steps = number(f[2], "steps");
          if (steps > Integer.MAX_VALUE || longestOf.put(f[1], (int) steps) != null) {
            throw new IllegalArgumentException("'longest' of column '" + f[1] + "' is given twice or is above "
                + Integer.MAX_VALUE);
          }
        } else if (line.startsWith("file\t")) {
          String[] f = line.split("\t", -1);
          if (f.length != 6 || !plainName(f[1])) {
            throw new IllegalArgumentException("expected 'file<TAB>name<TAB>first<TAB>samples<TAB>bytes<TAB>crc32c' with a"
                + " plain file name (no '/', '\\', ':' or control character; not '.' or '..'), found '" + shorten(line)
                + "'");
          }
          long first = number(f[2], "first");
          long samples = number(f[3], "samples");
          long bytes = number(f[4], "bytes");
          if (first != next) {
            throw new IllegalArgumentException("shard file " + f[1] + " starts at sample " + first + ", expected " + next
                + " (the files' ranges follow each other from 0)");
          }
          if (samples < 1 || samples > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("shard file " + f[1] + " must hold 1 to " + Integer.MAX_VALUE
                + " samples, found " + samples);
          }
          if (f[5].length() != 8) {
            throw new IllegalArgumentException("crc32c of " + f[1] + " must be 8 hex digits, found '" + f[5] + "'");
          }
          int crc = (int) Long.parseLong(f[5], 16);
          files.add(new Entry(f[1], first, (int) samples, bytes, crc));
          next = first + samples;
        } else {
          throw new IllegalArgumentException("expected a 'column', 'longest' or 'file' line, found '" + shorten(line) + "'");
        }
      } catch (Positioned e) {
        throw new FileFormatException(source, e.getMessage(), e);
      } catch (IllegalArgumentException e) {
        throw new FileFormatException(source, where + e.getMessage(), e);
      }
    }
    if (columns.isEmpty()) {
      throw new FileFormatException(source, "no 'column' line: the index names no column");
    }
    if (files.isEmpty()) {
      throw new FileFormatException(source, "no 'file' line: the shard set holds no sample");
    }
    List<Integer> longest = new ArrayList<>();
    for (Column c : columns) {
      Integer l = longestOf.get(c.name());
      if (c.variable() && l == null) {
        throw new FileFormatException(source, "no 'longest' line for column '" + c.name() + "', which has a variable"
            + " axis: expected 'longest<TAB>" + c.name() + "<TAB>steps' after the columns");
      }
      longest.add(l == null ? 0 : l);
    }
    return new ShardIndex(columns, longest, files);
  }

  /** An error that names its line and column itself. */
  private static final class Positioned extends IllegalArgumentException {
    Positioned(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * A column line's field ({@link SampleSchema.Field#parse}), its errors at their column of line
   * {@code line} (the field's text starts after {@code column<TAB>}).
   */
  private static Column column(String text, int line) {
    try {
      return new Column(SampleSchema.Field.parse(text));
    } catch (IllegalArgumentException e) {
      String m = String.valueOf(e.getMessage());
      java.util.regex.Matcher at = java.util.regex.Pattern.compile("column ([0-9]+): (.*)", java.util.regex.Pattern.DOTALL)
          .matcher(m);
      if (at.matches()) {
        throw new Positioned("line " + line + ", column " + (Long.parseLong(at.group(1)) + COLUMN.length()) + ": "
            + at.group(2), e);
      }
      throw new Positioned("line " + line + ": " + m, e);
    }
  }

  /** A column of a version-1 index: {@code name<TAB>role<TAB>dtype<TAB>dims}, dims comma-separated, -1 variable. */
  private static Column v1Column(String line) {
    String[] f = line.split("\t", -1);
    if (f.length != 4 || f[0].isEmpty()) {
      throw new IllegalArgumentException("expected 'name<TAB>role<TAB>dtype<TAB>dims', found '" + shorten(line) + "'");
    }
    Role role = enumValue(Role.class, f[1], "role");
    DType dtype = enumValue(DType.class, f[2], "dtype");
    String[] d = f[3].isEmpty() ? new String[0] : f[3].split(",", -1);
    long[] dims = new long[d.length];
    for (int i = 0; i < d.length; i++) {
      try {
        dims[i] = Long.parseLong(d[i]);
      } catch (NumberFormatException e) {
        dims[i] = 0;
      }
      if (dims[i] <= 0 && dims[i] != Shape.VARIABLE) {
        throw new IllegalArgumentException("dimension " + i + " of column '" + f[0] + "' must be a positive integer or"
            + " -1 (the variable axis), found '" + d[i] + "'");
      }
    }
    try {
      return Column.of(f[0], role, Shape.of(dims), dtype);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("column '" + f[0] + "': " + e.getMessage(), e);
    }
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String text, String field) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(text)) {
        return e;
      }
    }
    throw new IllegalArgumentException(field + " '" + text + "' is not one of " + java.util.Arrays.toString(
        type.getEnumConstants()));
  }

  /**
   * Whether {@code name} names a file in the set's directory on every file system: a ':' would read
   * as a URI scheme (Hadoop refuses the path), a separator or '..' would leave the directory.
   */
  private static boolean plainName(String name) {
    if (name.isEmpty() || name.equals(".") || name.equals("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || c == ':' || c < 0x20 || c == 0x7f) {
        return false;
      }
    }
    return true;
  }

  private static long number(String text, String field) {
    try {
      long v = Long.parseLong(text);
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(field + " must be an integer >= 0, found '" + text + "'");
  }

  private static String shorten(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
