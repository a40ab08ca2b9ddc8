package dev.minibatch.shards;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The index of a shard set, the text file {@value #NAME} beside its Parquet files: the columns,
 * then one line per shard file with its global sample range, its length in bytes and its CRC-32C,
 * in global order. Shard file {@code f} holds the samples {@code [first, first + samples)}; the
 * ranges follow each other from 0 without a gap. A column with a variable axis (-1 in its dims)
 * has a {@code longest} line: the most steps a sample of the set holds along it, so a reader can
 * size its batch buffers without reading every file first.
 *
 * <pre>
 * minibatch-shards/1
 * column	image	DATA	FLOAT32	28,28
 * column	label	LABEL	INT32
 * file	part-00000.parquet	0	10000	31462001	7a3b12c4
 * </pre>
 *
 * @param longest per column, the longest sample's steps along its variable axis (0 for a fixed column)
 */
record ShardIndex(List<Column> columns, List<Integer> longest, List<Entry> files) {
  /** The index's file name in the shard set's directory. */
  static final String NAME = "shards.index";
  private static final String MAGIC = "minibatch-shards/1";

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
   * The index of parts written in parallel, in the set's order: part 0's files, then part 1's, and
   * so on, each file's {@code first} the running sum of the samples before it.
   *
   * @param parts every part {@code 0 .. k-1}, each once, in order of part number
   * @throws IllegalArgumentException if a part is missing, listed twice or out of order, two parts
   *     name the same file, two parts hold different arrays, or no part holds a sample
   */
  static ShardIndex of(List<ShardWriter.WrittenPart> parts) {
    String columnText = null;
    int columnsOf = -1;
    Set<String> names = new HashSet<>();
    List<Entry> files = new ArrayList<>();
    int[] longest = new int[0];
    long first = 0;
    for (int i = 0; i < parts.size(); i++) {
      ShardWriter.WrittenPart p = parts.get(i);
      if (p.part() != i) {
        throw new IllegalArgumentException(p.part() < i ? "part " + p.part() + " is listed twice or out of order (at "
            + "place " + i + "): commit takes parts 0 .. k-1, each once, in order"
            : "part " + i + " is missing (found part " + p.part() + " in its place): commit takes parts 0 .. k-1,"
            + " each once, in order");
      }
      if (!p.columns().isEmpty()) {
        if (columnText == null) {
          columnText = p.columns();
          columnsOf = i;
        } else if (!columnText.equals(p.columns())) {
          throw new IllegalArgumentException("part " + i + " holds the arrays\n" + p.columns() + "part " + columnsOf
              + " holds\n" + columnText + "the parts of a shard set hold the same arrays");
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
          throw new IllegalArgumentException("file " + f.name() + " is listed twice (again by part " + i + "): each part"
              + " writes files of its own");
        }
        files.add(new Entry(f.name(), first, f.samples(), f.bytes(), f.crc32c()));
        first += f.samples();
      }
    }
    if (columnText == null || files.isEmpty()) {
      throw new IllegalArgumentException("the " + parts.size() + " parts hold no sample: a shard set holds at least one");
    }
    List<Column> columns = new ArrayList<>();
    for (String line : columnText.split("\n")) {
      columns.add(Column.parse(line));
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
    StringBuilder sb = new StringBuilder(MAGIC).append('\n');
    for (Column c : columns) {
      sb.append("column\t").append(c.line()).append('\n');
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
    if (lines.length == 0 || !lines[0].equals(MAGIC)) {
      throw new FileFormatException(source, "line 1: expected '" + MAGIC + "', found '" + (lines.length == 0 ? ""
          : shorten(lines[0])) + "': not a minibatch shard index");
    }
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
        if (line.startsWith("column\t")) {
          if (!files.isEmpty()) {
            throw new IllegalArgumentException("a column after the first file");
          }
          Column c = Column.parse(line.substring("column\t".length()));
          c.rowBytes();
          for (Column other : columns) {
            if (other.name().equals(c.name())) {
              throw new IllegalArgumentException("column '" + c.name() + "' appears twice");
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
