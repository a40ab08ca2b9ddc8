package dev.minibatch.runtime.io.csv;

import dev.minibatch.DType;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.csv.CsvTable.NumericArray;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Parses CSV files into a {@link CsvTable}, straight from bytes read in pieces (see {@link
 * BlockParser} for the record rules). A UTF-8 byte order mark is skipped, gzip files are
 * decompressed. Every row must
 * have the same number of fields: the expected count given, or else the first data row's.
 *
 * <p>A file larger than {@link CsvFormat#minBlockBytes()} per thread is cut at line breaks into one
 * block per thread; the blocks are parsed in parallel and joined in order, and class names are
 * numbered in order of first appearance in the whole file, so the table is identical to the
 * sequential parse. (If a quoted field with a line break straddles a cut, the file is parsed again
 * sequentially.)
 */
final class CsvParser {
  private CsvParser() {}

  /**
   * Parses {@code file}; the first data row sets the number of fields.
   *
   * @throws FileFormatException for a row of the wrong length (naming file, line and both counts),
   *     an unparsable field (naming file, line and column), an open quote at the end of the file
   * @throws java.io.UncheckedIOException naming the file if it cannot be read
   */
  public static CsvTable parse(Path file, CsvFormat format) {
    return parse(file, format, -1);
  }

  /**
   * Parses {@code file}, whose rows must have {@code expectedFields} fields (the label column
   * included); -1 takes the count from the first data row.
   */
  public static CsvTable parse(Path file, CsvFormat format, int expectedFields) {
    try (CsvSource source = CsvSource.open(file)) {
      return parse(source, format, expectedFields);
    }
  }

  /**
   * Parses several files as one table, in order (each with its own header); class names are
   * numbered in order of first appearance across the files.
   */
  public static CsvTable parseAll(List<Path> files, CsvFormat format, int expectedFields) {
    return parseParts(files, format, expectedFields).table(format);
  }

  /**
   * As {@link #parseAll}, but leaves the data as the parsed blocks (in order) so that a caller can
   * use them where they are instead of joining them first.
   */
  static Parts parseParts(List<Path> files, CsvFormat format, int expectedFields) {
    List<Part> parts = new ArrayList<>();
    int fields = expectedFields;
    for (Path file : files) {
      try (CsvSource source = CsvSource.open(file)) {
        long start = start(source);
        int fieldsNow = fields < 0 ? fieldsOf(source, format, start, BlockParser.PIECE) : fields;
        if (fieldsNow < 0) {
          continue;
        }
        fields = fieldsNow;
        parts.addAll(parseChunks(source, format, fields, start, BlockParser.PIECE));
      }
    }
    int columns = fields < 0 ? 0 : fields - (format.hasLabelColumn() ? 1 : 0);
    return join(format, columns, parts);
  }

  private static int fieldsOf(CsvSource source, CsvFormat format, long start, int pieceBytes) {
    return new BlockParser(source, format, 0, -1, pieceBytes).countFields(start, format.header() ? 1 : 0);
  }

  /**
   * Parses the bytes of a file.
   *
   * @param file the name used in error messages
   * @param expectedFields fields per row, label included, or -1 for the first row's count
   */
  public static CsvTable parse(String file, byte[] bytes, CsvFormat format, int expectedFields) {
    return parse(CsvSource.of(file, bytes), format, expectedFields);
  }

  private static CsvTable parse(CsvSource source, CsvFormat format, int expectedFields) {
    return parse(source, format, expectedFields, BlockParser.PIECE);
  }

  /** As {@link #parse(String, byte[], CsvFormat, int)}, reading {@code pieceBytes} at a time. */
  static CsvTable parse(String file, byte[] bytes, CsvFormat format, int expectedFields, int pieceBytes) {
    return parse(CsvSource.of(file, bytes), format, expectedFields, pieceBytes);
  }

  private static CsvTable parse(CsvSource source, CsvFormat format, int expectedFields, int pieceBytes) {
    long start = start(source);
    int fields = expectedFields < 0 ? fieldsOf(source, format, start, pieceBytes) : expectedFields;
    if (fields < 0) {
      return new CsvTable(0, 0, NumericArray.zeros(format.dtype(), 0),
          format.hasLabelColumn() ? NumericArray.zeros(labelType(format), 0) : null, List.of());
    }
    int columns = format.hasLabelColumn() ? fields - 1 : fields;
    return join(format, columns, parseChunks(source, format, fields, start, pieceBytes)).table(format);
  }

  /** The records of one file from {@code start} on, with {@code fields} fields each, as one part per block. */
  private static List<Part> parseChunks(CsvSource source, CsvFormat format, int fields, long start, int pieceBytes) {
    long size = source.size();
    int skip = format.header() ? 1 : 0;
    int labelColumn = -1;
    if (format.hasLabelColumn()) {
      labelColumn = format.labelColumn() < 0 ? fields + format.labelColumn() : format.labelColumn();
      if (labelColumn < 0 || labelColumn >= fields) {
        throw new FileFormatException(source.name(), "label column " + format.labelColumn() + " does not exist: rows have "
            + fields + " fields");
      }
    }
    int blocks = (int) Math.max(1, Math.min(format.threads(), (size - start) / format.minBlockBytes()));
    List<Part> parts = blocks == 1 ? null : parseParallel(source, format, fields, labelColumn, start, skip, blocks, pieceBytes);
    if (parts == null) {
      BlockParser.Result r = new BlockParser(source, format, fields, labelColumn, pieceBytes).parse(start, size, skip, true);
      parts = List.of(new Part(r.rows(), r.data(), r.labels(), r.localNames()));
    }
    return parts;
  }

  private static @Nullable List<Part> parseParallel(CsvSource source, CsvFormat format, int fields,
      int labelColumn, long start, int skip, int blocks, int pieceBytes) {
    long size = source.size();
    long[] bounds = new long[blocks + 1];
    bounds[0] = start;
    bounds[blocks] = size;
    for (int i = 1; i < blocks; i++) {
      bounds[i] = Math.max(lineStartAtOrAfter(source, start + (size - start) * i / blocks), bounds[i - 1]);
    }
    BlockParser.Result[] results = new BlockParser.Result[blocks];
    Throwable[] failures = new Throwable[blocks];
    Workers workers = new Workers("csv-parse");
    for (int i = 0; i < blocks; i++) {
      int block = i;
      workers.start(() -> {
        try {
          results[block] = new BlockParser(source, format, fields, labelColumn, pieceBytes)
              .parse(bounds[block], bounds[block + 1], block == 0 ? skip : 0, block == blocks - 1);
        } catch (Throwable t) {
          failures[block] = t;
        }
      });
    }
    // Thread.join orders the workers' writes before the reads below.
    workers.awaitAll();
    List<Part> parts = new ArrayList<>();
    for (int i = 0; i < blocks; i++) {
      Throwable t = failures[i];
      if (t instanceof RuntimeException e) {
        throw e;
      }
      if (t instanceof Error e) {
        throw e;
      }
      if (t != null) {
        throw new IllegalStateException("parsing " + source.name() + " failed", t);
      }
      BlockParser.Result r = results[i];
      if (r.endedInsideQuotes()) {
        return null;
      }
      parts.add(new Part(r.rows(), r.data(), r.labels(), r.localNames()));
    }
    return parts;
  }

  /** The first offset at or after {@code p} that follows a line break (or the end). */
  private static long lineStartAtOrAfter(CsvSource source, long p) {
    byte[] piece = new byte[1 << 12];
    long at = p - 1;
    while (at < source.size()) {
      int n = source.read(at, piece, 0, piece.length);
      for (int i = 0; i < n; i++) {
        if (piece[i] == '\n') {
          return at + i + 1;
        }
      }
      at += n;
    }
    return source.size();
  }

  /** The rows of one block or file, with its class names numbered locally. */
  private record Part(int rows, NumericArray data, @Nullable NumericArray labels, List<String> names) {}

  /**
   * Parsed rows before the data blocks are joined: {@code data} holds {@code rows * columns} values
   * in order across its parts; labels are already joined and numbered globally.
   */
  record Parts(int rows, int columns, List<NumericArray> data, int[] partRows, @Nullable NumericArray labels,
      List<String> classNames) {
    CsvTable table(CsvFormat format) {
      return new CsvTable(rows, columns, NumericArray.concat(format.dtype(), data), labels, classNames);
    }
  }

  private static Parts join(CsvFormat format, int columns, List<Part> parts) {
    Map<String, Integer> global = new LinkedHashMap<>();
    for (String n : format.classNames()) {
      global.put(n, global.size());
    }
    List<NumericArray> data = new ArrayList<>();
    List<NumericArray> labels = new ArrayList<>();
    int[] partRows = new int[parts.size()];
    int rows = 0;
    for (Part p : parts) {
      partRows[data.size()] = p.rows();
      rows += p.rows();
      data.add(p.data());
      NumericArray l = p.labels();
      if (l == null) {
        continue;
      }
      if (format.classLabels()) {
        int[] map = new int[p.names().size()];
        boolean identity = true;
        for (int i = 0; i < map.length; i++) {
          map[i] = global.computeIfAbsent(p.names().get(i), k -> global.size());
          identity &= map[i] == i;
        }
        if (!identity) {
          int[] remapped = new int[l.length()];
          for (int i = 0; i < remapped.length; i++) {
            remapped[i] = map[(int) l.getLong(i)];
          }
          l = NumericArray.of(remapped, remapped.length);
        }
      }
      labels.add(l);
    }
    NumericArray joinedLabels = format.hasLabelColumn()
        ? NumericArray.concat(labelType(format), labels)
        : null;
    List<String> names = format.classLabels() ? new ArrayList<>(global.keySet()) : List.of();
    return new Parts(rows, columns, data, partRows, joinedLabels, names);
  }

  private static DType labelType(CsvFormat format) {
    return format.classLabels() ? DType.INT32 : format.dtype();
  }

  /** Where the records start: after a UTF-8 byte order mark, if there is one. */
  private static long start(CsvSource source) {
    byte[] b = new byte[3];
    int n = source.read(0, b, 0, 3);
    return n == 3 && (b[0] & 0xff) == 0xEF && (b[1] & 0xff) == 0xBB && (b[2] & 0xff) == 0xBF ? 3 : 0;
  }
}
