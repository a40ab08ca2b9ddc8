package dev.minibatch.runtime.io.csv;

import dev.minibatch.DType;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.csv.CsvTable.NumericArray;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Parses the records in bytes {@code [from, to)} of one file — a whole file or one block of it that
 * starts at a record boundary — into numbers. One instance per block and thread. The bytes are read
 * from the {@link CsvSource} in pieces into one window (about a megabyte, larger only for a longer
 * record), so memory is bounded by the output, not the file, and the parser reads from cache.
 *
 * <p>Record rules: fields are separated by the delimiter and records by LF (a CR before it is
 * dropped); blank lines are skipped; spaces around a field are ignored; a field that starts with
 * the quote runs to the matching quote, may hold delimiters and line breaks, and writes a quote as
 * two; a quote inside an unquoted field is an ordinary character.
 *
 * <p>Longer than our usual ~400 lines on purpose: it is one byte-level state machine (record
 * scanning, field splitting, the numeric fast path and its error reporting) whose hot loop shares
 * its cursor state in fields; split across classes, that state would have to be passed around or
 * re-read per field, which the CSV throughput figures in docs/performance.md would show.
 */
final class BlockParser {
  /** The outcome for one block. */
  record Result(int rows, NumericArray data, @Nullable NumericArray labels, List<String> localNames,
      boolean endedInsideQuotes) {}

  /** Bytes read from the source at a time: about a megabyte, so that the window stays in cache. */
  static final int PIECE = 1 << 20;

  private final CsvSource source;
  private final int pieceBytes;
  private final String file;
  private final byte delim;
  private final byte quote;
  private final DType dtype;
  private final int columns;
  private final int labelColumn;
  private final int dataColumns;
  private final boolean classLabels;
  private final boolean fixedClasses;
  private final ByteDictionary dictionary;

  // The window: bytes [base, base + limit) of the file are b[0, limit).
  private byte[] b = new byte[0];
  private long base;
  private int limit;

  // The fields of the current record: [start, end) and whether it was quoted with "" escapes.
  private int[] starts = new int[64];
  private int[] ends = new int[64];
  private boolean[] escaped = new boolean[64];
  private int fieldCount;
  private int recordStart;
  private boolean insideQuotesAtEnd;

  private float[] f32 = new float[0];
  private double[] f64 = new double[0];
  private int[] i32 = new int[0];
  private long[] i64 = new long[0];
  private float[] labelF32 = new float[0];
  private double[] labelF64 = new double[0];
  private int[] labelI32 = new int[0];
  private long[] labelI64 = new long[0];
  private byte[] scratch = new byte[64];

  /**
   * A parser for one block of {@code source}.
   *
   * @param columns fields per record, the label column included
   * @param labelColumn the resolved label column in [0, columns), or -1
   */
  BlockParser(CsvSource source, CsvFormat format, int columns, int labelColumn) {
    this(source, format, columns, labelColumn, PIECE);
  }

  /** As the other constructor, reading {@code pieceBytes} at a time (tests use tiny pieces to cut records anywhere). */
  BlockParser(CsvSource source, CsvFormat format, int columns, int labelColumn, int pieceBytes) {
    this.source = source;
    this.pieceBytes = pieceBytes;
    this.file = source.name();
    this.delim = format.delimiter();
    this.quote = format.quote();
    this.dtype = format.dtype();
    this.columns = columns;
    this.labelColumn = labelColumn;
    this.dataColumns = labelColumn >= 0 ? columns - 1 : columns;
    this.classLabels = labelColumn >= 0 && format.classLabels();
    this.fixedClasses = !format.classNames().isEmpty();
    this.dictionary = fixedClasses ? ByteDictionary.of(format.classNames()) : new ByteDictionary();
  }

  /** Starts the window at file offset {@code from}, for a block that ends at {@code to}. */
  private void open(long from, long to) {
    b = new byte[(int) Math.max(1, Math.min(pieceBytes, to - from))];
    base = from;
    limit = 0;
    fill(to);
  }

  /** Reads more of {@code [base + limit, to)} into the free end of the window. */
  private void fill(long to) {
    int want = (int) Math.min(b.length - limit, to - base - limit);
    if (want > 0) {
      limit += source.read(base + limit, b, limit, want);
    }
  }

  /**
   * Moves the window on so that it starts at {@code keep} (the first byte still needed), doubles it
   * if that byte is already its start (a record longer than the window), and reads more.
   */
  private void advance(int keep, long to) {
    if (keep == 0 && limit == b.length) {
      b = Arrays.copyOf(b, b.length * 2);
    } else {
      System.arraycopy(b, keep, b, 0, limit - keep);
      base += keep;
      limit -= keep;
    }
    fill(to);
  }

  /** Whether the window reaches {@code to}. */
  private boolean atEnd(long to) {
    return base + limit >= to;
  }

  /**
   * Where complete records end in the window: after its last line break, or its end once it
   * reaches {@code to}; 0 if it holds no line break yet. (A line break inside quotes may pass for a
   * record end here; {@link #scanRecord} then runs out inside the quotes and the window moves on.)
   */
  private int completeEnd(long to) {
    if (atEnd(to)) {
      return limit;
    }
    int i = limit - 1;
    while (i >= 0 && b[i] != '\n') {
      i--;
    }
    return i + 1;
  }

  /**
   * Counts the fields of the first non-blank record at or after {@code from}, after skipping
   * {@code skipRecords} non-blank records; -1 if there is none.
   */
  int countFields(long from, int skipRecords) {
    long to = source.size();
    open(from, to);
    int p = 0;
    int skip = skipRecords;
    while (true) {
      int end = completeEnd(to);
      while (p < end) {
        recordStart = p;
        p = scanRecord(p, end, atEnd(to));
        if (insideQuotesAtEnd) {
          p = recordStart;
          break;
        }
        if (fieldCount == 0) {
          continue;
        }
        if (skip-- > 0) {
          continue;
        }
        return fieldCount;
      }
      if (atEnd(to)) {
        return -1;
      }
      advance(p, to);
      p = 0;
    }
  }

  /**
   * Parses the records of {@code [from, to)}, skipping the first {@code skipRecords} non-blank
   * ones (the header).
   *
   * @param last whether {@code to} is the end of the file: a quoted field still open there is an
   *     error; in an inner block it means the block boundary was wrong, and the result says so
   */
  Result parse(long from, long to, int skipRecords, boolean last) {
    open(from, to);
    ensureRows(estimateRows(to - from));
    int rows = 0;
    int p = 0;
    int skip = skipRecords;
    boolean fast = dtype == DType.FLOAT32 && !classLabels && delim != '.' && delim != '-' && (delim < '0' || delim > '9');
    while (true) {
      boolean atEnd = atEnd(to);
      int end = completeEnd(to);
      while (p < end) {
        recordStart = p;
        if (fast && skip == 0) {
          if (rows == capacityRows()) {
            ensureRows(Math.max(16, rows + (rows >> 1)));
          }
          int next = fastFloatRecord(p, end, rows);
          if (next >= 0) {
            rows++;
            p = next;
            continue;
          }
        }
        p = scanRecord(p, end, last && atEnd);
        if (insideQuotesAtEnd) {
          if (atEnd) {
            return new Result(0, NumericArray.zeros(dtype, 0), null, List.of(), true);
          }
          p = recordStart;
          break;
        }
        if (fieldCount == 0) {
          continue;
        }
        if (skip > 0) {
          skip--;
          continue;
        }
        if (fieldCount != columns) {
          throw error("row has " + fieldCount + " fields, expected " + columns, -1);
        }
        if (rows == capacityRows()) {
          ensureRows(Math.max(16, rows + (rows >> 1)));
        }
        store(rows);
        rows++;
      }
      if (atEnd && p >= end) {
        return new Result(rows, data(rows), labels(rows), dictionary.names(), false);
      }
      advance(p, to);
      p = 0;
    }
  }

  /**
   * The fast path for float32 records of short plain decimals: parses the record at {@code p}
   * straight into row {@code row} in one pass (no field table) and returns the position after its
   * line break, or -1 for anything else — a quote, a space, an exponent, more than 7 digits, a
   * blank line, a wrong field count — which {@link #scanRecord} and {@link #store} then parse (and
   * report) the general way, overwriting whatever this wrote. The values are those of {@link
   * NumberParsing#parseFloat}'s own fast path, so both ways give identical floats.
   */
  private int fastFloatRecord(int p, int to, int row) {
    byte[] b = this.b;
    float[] data = f32;
    int at = row * dataColumns;
    int last = columns - 1;
    for (int c = 0; c <= last; c++) {
      boolean negative = false;
      if (p < to && b[p] == '-') {
        negative = true;
        p++;
      }
      int mantissa = 0;
      int digits = 0;
      int fraction = -1;
      while (p < to) {
        int d = b[p] - '0';
        if (d >= 0 && d <= 9) {
          mantissa = mantissa * 10 + d;
          digits++;
          if (fraction >= 0) {
            fraction++;
          }
        } else if (b[p] == '.' && fraction < 0) {
          fraction = 0;
        } else {
          break;
        }
        p++;
      }
      if (digits == 0 || digits > 7) {
        return -1;
      }
      if (c < last) {
        if (p >= to || b[p] != delim) {
          return -1;
        }
        p++;
      } else if (p < to) {
        if (b[p] == '\r' && p + 1 < to && b[p + 1] == '\n') {
          p++;
        }
        if (b[p] != '\n') {
          return -1;
        }
        p++;
      }
      float v = fraction > 0 ? mantissa / NumberParsing.pow10(fraction) : mantissa;
      if (negative) {
        v = -v;
      }
      if (c == labelColumn) {
        labelF32[row] = v;
      } else {
        data[at++] = v;
      }
    }
    return p;
  }

  private void store(int row) {
    int at = row * dataColumns;
    for (int c = 0; c < columns; c++) {
      int s = starts[c];
      int e = ends[c];
      if (c == labelColumn) {
        storeLabel(row, c, s, e);
        continue;
      }
      if (s == e) {
        throw error("empty field in column " + c + " (0-based)", c);
      }
      try {
        switch (dtype) {
          case FLOAT32:
            f32[at++] = NumberParsing.parseFloat(b, s, e);
            break;
          case FLOAT64:
            f64[at++] = NumberParsing.parseDouble(b, s, e);
            break;
          case INT32:
            i32[at++] = NumberParsing.parseInt(b, s, e);
            break;
          default:
            i64[at++] = NumberParsing.parseLong(b, s, e);
        }
      } catch (NumberFormatException ex) {
        throw unparsable(c, s, e);
      }
    }
  }

  private void storeLabel(int row, int c, int s, int e) {
    if (classLabels) {
      int from = s;
      int to = e;
      if (escaped[c]) {
        to = unescape(s, e);
        from = 0;
      }
      byte[] src = escaped[c] ? scratch : b;
      if (from == to) {
        throw error("empty class name in column " + c + " (0-based)", c);
      }
      int index = dictionary.get(src, from, to);
      if (index < 0) {
        if (fixedClasses) {
          throw error("column " + c + " (0-based): unknown class name '" + new String(src, from, to - from, StandardCharsets.UTF_8)
              + "'; the class names are " + dictionary.names(), c);
        }
        index = dictionary.add(src, from, to);
      }
      labelI32[row] = index;
      return;
    }
    if (s == e) {
      throw error("empty field in column " + c + " (0-based)", c);
    }
    try {
      switch (dtype) {
        case FLOAT32:
          labelF32[row] = NumberParsing.parseFloat(b, s, e);
          break;
        case FLOAT64:
          labelF64[row] = NumberParsing.parseDouble(b, s, e);
          break;
        case INT32:
          labelI32[row] = NumberParsing.parseInt(b, s, e);
          break;
        default:
          labelI64[row] = NumberParsing.parseLong(b, s, e);
      }
    } catch (NumberFormatException ex) {
      throw unparsable(c, s, e);
    }
  }

  /** Copies a quoted field's content to {@code scratch} with each doubled quote made single. */
  private int unescape(int s, int e) {
    if (scratch.length < e - s) {
      scratch = new byte[e - s];
    }
    int n = 0;
    for (int i = s; i < e; i++) {
      scratch[n++] = b[i];
      if (b[i] == quote) {
        i++;
      }
    }
    return n;
  }

  /**
   * Scans one record from {@code p}; leaves its fields in {@code starts/ends}, {@code fieldCount} 0
   * for a blank line, and returns the position after the record's line break.
   */
  private int scanRecord(int p, int to, boolean last) {
    insideQuotesAtEnd = false;
    fieldCount = 0;
    int q = p;
    while (q < to && (b[q] == ' ' || b[q] == '\r' || (b[q] == '\t' && delim != '\t'))) {
      q++;
    }
    if (q == to) {
      return to;
    }
    if (b[q] == '\n') {
      return q + 1;
    }
    while (true) {
      while (p < to && (b[p] == ' ' || (b[p] == '\t' && delim != '\t'))) {
        p++;
      }
      if (fieldCount == starts.length) {
        growFields();
      }
      boolean esc = false;
      int s;
      int e;
      if (p < to && b[p] == quote) {
        p++;
        s = p;
        while (true) {
          while (p < to && b[p] != quote) {
            p++;
          }
          if (p == to) {
            if (!last) {
              insideQuotesAtEnd = true;
              return to;
            }
            throw error("a quoted field is not closed before the end of the file", fieldCount);
          }
          if (p + 1 < to && b[p + 1] == quote) {
            esc = true;
            p += 2;
            continue;
          }
          break;
        }
        e = p;
        p++;
        while (p < to && (b[p] == ' ' || b[p] == '\r' || (b[p] == '\t' && delim != '\t'))) {
          p++;
        }
        if (p < to && b[p] != delim && b[p] != '\n') {
          throw error("column " + fieldCount + " (0-based): unexpected '" + (char) (b[p] & 0xff)
              + "' after the closing quote", fieldCount);
        }
      } else {
        s = p;
        while (p < to) {
          byte c = b[p];
          if (c == delim || c == '\n') {
            break;
          }
          p++;
        }
        e = p;
        while (e > s && (b[e - 1] == ' ' || b[e - 1] == '\r' || (b[e - 1] == '\t' && delim != '\t'))) {
          e--;
        }
      }
      starts[fieldCount] = s;
      ends[fieldCount] = e;
      escaped[fieldCount] = esc;
      fieldCount++;
      if (p < to && b[p] == delim) {
        p++;
        continue;
      }
      return p < to ? p + 1 : to;
    }
  }

  private void growFields() {
    int n = starts.length * 2;
    starts = Arrays.copyOf(starts, n);
    ends = Arrays.copyOf(ends, n);
    escaped = Arrays.copyOf(escaped, n);
  }

  /** Rows in a block of {@code bytes} if they are as long as the window's first line. */
  private int estimateRows(long bytes) {
    int lineEnd = 0;
    while (lineEnd < limit && b[lineEnd] != '\n') {
      lineEnd++;
    }
    long perRow = Math.max(2, lineEnd + 1);
    return (int) Math.min(Integer.MAX_VALUE / Math.max(1, columns) - 8, bytes / perRow + 16);
  }

  private int capacityRows() {
    int n;
    switch (dtype) {
      case FLOAT32:
        n = f32.length;
        break;
      case FLOAT64:
        n = f64.length;
        break;
      case INT32:
        n = i32.length;
        break;
      default:
        n = i64.length;
    }
    return dataColumns == 0 ? labelCapacity() : Math.min(n / dataColumns, labelColumn >= 0 ? labelCapacity() : Integer.MAX_VALUE);
  }

  private int labelCapacity() {
    if (labelColumn < 0) {
      return Integer.MAX_VALUE;
    }
    if (classLabels || dtype == DType.INT32) {
      return labelI32.length;
    }
    switch (dtype) {
      case FLOAT32:
        return labelF32.length;
      case FLOAT64:
        return labelF64.length;
      default:
        return labelI64.length;
    }
  }

  private void ensureRows(int rows) {
    long values = (long) rows * dataColumns;
    if (values > Integer.MAX_VALUE - 8) {
      throw new FileFormatException(file, "more than " + (Integer.MAX_VALUE - 8)
          + " values in one block; split the file");
    }
    int n = (int) values;
    switch (dtype) {
      case FLOAT32:
        f32 = Arrays.copyOf(f32, n);
        break;
      case FLOAT64:
        f64 = Arrays.copyOf(f64, n);
        break;
      case INT32:
        i32 = Arrays.copyOf(i32, n);
        break;
      default:
        i64 = Arrays.copyOf(i64, n);
    }
    if (labelColumn >= 0) {
      if (classLabels || dtype == DType.INT32) {
        labelI32 = Arrays.copyOf(labelI32, rows);
      } else if (dtype == DType.FLOAT32) {
        labelF32 = Arrays.copyOf(labelF32, rows);
      } else if (dtype == DType.FLOAT64) {
        labelF64 = Arrays.copyOf(labelF64, rows);
      } else {
        labelI64 = Arrays.copyOf(labelI64, rows);
      }
    }
  }

  private NumericArray data(int rows) {
    int n = rows * dataColumns;
    switch (dtype) {
      case FLOAT32:
        return NumericArray.of(f32, n);
      case FLOAT64:
        return NumericArray.of(f64, n);
      case INT32:
        return NumericArray.of(i32, n);
      default:
        return NumericArray.of(i64, n);
    }
  }

  private @Nullable NumericArray labels(int rows) {
    if (labelColumn < 0) {
      return null;
    }
    if (classLabels || dtype == DType.INT32) {
      return NumericArray.of(labelI32, rows);
    }
    switch (dtype) {
      case FLOAT32:
        return NumericArray.of(labelF32, rows);
      case FLOAT64:
        return NumericArray.of(labelF64, rows);
      default:
        return NumericArray.of(labelI64, rows);
    }
  }

  private FileFormatException unparsable(int column, int s, int e) {
    int shown = Math.min(e - s, 40);
    String text = new String(b, s, shown, StandardCharsets.UTF_8) + (shown < e - s ? "…" : "");
    return error("column " + column + " (0-based): cannot parse '" + text + "' as " + dtype.name().toLowerCase(java.util.Locale.ROOT), column);
  }

  /** An error at the current record: the message is prefixed with {@code file:line}. */
  private FileFormatException error(String message, int column) {
    return new FileFormatException(file + ":" + source.lineOf(base + recordStart), message);
  }
}
