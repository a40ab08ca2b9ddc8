package dev.minibatch.runtime.io.csv;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.internal.io.FileBytes;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.LocalFormat;
import dev.minibatch.runtime.io.Format.Options;
import dev.minibatch.runtime.io.Format.Problems;
import dev.minibatch.runtime.io.Format.Report;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CSV files, parsed by the runtime's {@link CsvTable#parse}. Settings not given are detected from the
 * first two lines: a header when a field of the first line is not a number where the second
 * line's is; the last column as class-name labels when it is not a number in the second line. Its
 * options are {@link CsvFileOptions}. A {@link java.util.ServiceLoader} service of {@link Format},
 * tried last: it recognises any text.
 */
public final class CsvFileFormat implements LocalFormat {
  /** The format; also what {@link CsvProvider#format()} returns. */
  public CsvFileFormat() {}

  /** How much of a file detection reads: enough for a header and a data line of wide rows. */
  private static final int DETECT_BYTES = 1 << 16;

  @Override
  public int probeOrder() {
    return CSV_ORDER;
  }

  @Override
  public String name() {
    return "csv";
  }

  /** Any text: no NUL bytes in the first bytes. */
  @Override
  public boolean probe(Path file, byte[] head) {
    for (byte b : head) {
      if (b == 0) {
        return false;
      }
    }
    return head.length > 0;
  }

  /** The format and the number of fields per row, settings not given being detected. */
  record Detected(CsvFormat format, int fields, String how) {
    int columns() {
      return format.hasLabelColumn() ? fields - 1 : fields;
    }
  }

  static Detected detect(byte[] bytes, Options options) {
    CsvFileOptions o = options.get(CsvFileOptions.class, CsvFileOptions.DETECTED);
    List<String[]> lines = firstLines(bytes, o.delimiter(), 2);
    String[] first = lines.isEmpty() ? new String[0] : lines.get(0);
    String[] second = lines.size() > 1 ? lines.get(1) : first;
    boolean header;
    String how;
    if (o.header() != null) {
      header = o.header();
      how = "header: " + (header ? "yes" : "no");
    } else {
      header = false;
      for (int i = 0; i < Math.min(first.length, second.length); i++) {
        header |= !isNumber(first[i]) && isNumber(second[i]) && lines.size() > 1;
      }
      how = "header: " + (header ? "yes" : "no") + " (detected)";
    }
    String[] data = header ? second : first;
    CsvFormat.Builder f = CsvFormat.builder().delimiter(o.delimiter()).header(header);
    if (o.labelColumn() != null) {
      f.labelColumn(o.labelColumn()).classLabels(Boolean.TRUE.equals(o.classLabels()));
      how += ", label column " + o.labelColumn();
    } else if (data.length > 1 && !isNumber(data[data.length - 1])) {
      f.labelColumn(-1).classLabels(o.classLabels() == null || o.classLabels());
      how += ", label column " + (data.length - 1) + " (detected: class names)";
    } else {
      how += ", no label column";
    }
    return new Detected(f.build(), data.length, how);
  }

  @Override
  public Report describe(Path file, Options options) {
    byte[] bytes = FileBytes.readAll(file);
    Detected d = detect(bytes, options);
    CsvTable t = CsvTable.parse(file.toString(), bytes, d.format(), d.fields());
    Report r = new Report();
    r.field("format", "csv (delimiter '" + options.get(CsvFileOptions.class, CsvFileOptions.DETECTED).delimiter() + "', " + d.how() + ")");
    r.field("rows", Integer.toString(t.rows()));
    r.field("data", Report.shape(t.rows(), t.columns()) + " " + t.data().dtype() + ", " + t.columns() + " values per row");
    var labels = t.labels();
    if (labels != null) {
      r.field("labels", Report.shape(t.rows()) + " " + labels.dtype()
          + (t.classNames().isEmpty() ? "" : ", " + t.classNames().size() + " classes"));
      Map<String, Long> counts = new LinkedHashMap<>();
      if (!t.classNames().isEmpty()) {
        for (String c : t.classNames()) {
          counts.put(c, 0L);
        }
        for (int i = 0; i < t.rows(); i++) {
          counts.merge(t.classNames().get((int) labels.getLong(i)), 1L, Long::sum);
        }
      } else {
        Map<String, Long> byValue = Report.counts(i -> labels.getDouble((int) i), t.rows());
        if (byValue.size() <= 100) {
          counts.putAll(byValue);
        }
      }
      if (!counts.isEmpty()) {
        r.histogram("classes", counts);
      }
    }
    List<String> columns = new ArrayList<>();
    int c = t.columns();
    for (int k = 0; k < Math.min(c, 16); k++) {
      int col = k;
      columns.add("column " + k + ": " + Report.summary(i -> t.data().getDouble(i * c + col), t.rows()));
    }
    if (c > 16) {
      columns.add("... " + c + " columns");
    }
    r.rows("columns", columns);
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < Math.min(options.rows(), t.rows()); i++) {
      int row = i;
      String label = labels == null ? "" : ", label " + (t.classNames().isEmpty() ? Report.number(labels.getDouble(i))
          : t.classNames().get((int) labels.getLong(i)));
      rows.add("#" + i + ": " + Report.values(k -> t.data().getDouble(row * c + k), c, 8) + label);
    }
    r.rows("first rows", rows);
    return r;
  }

  /**
   * Parses the file; at each error, records it, empties the line it names (a blank line is skipped,
   * so the other lines keep their numbers) and parses again, until the file parses or the list is
   * full. So every message is the parser's own. Then the values the parser accepts but training
   * cannot use ({@code NaN}, infinities) are reported with their line and column.
   */
  @Override
  public void validate(Path file, Options options, Problems problems) {
    byte[] bytes;
    try {
      bytes = FileBytes.readAll(file);
    } catch (FileFormatException e) {
      problems.report(e, e.file());
      return;
    }
    Detected d = detect(bytes, options);
    CsvFormat format = d.format().toBuilder().threads(1).build();
    Set<Integer> seen = new HashSet<>();
    String name = file.toString();
    while (!problems.isFull()) {
      try {
        CsvTable table = CsvTable.parse(name, bytes, format, d.fields());
        CsvNonFinite.report(name, bytes, format, d.fields(), table, problems);
        return;
      } catch (FileFormatException e) {
        problems.report(e, e.file());
        int line = lineOf(name, e.file());
        if (line < 1 || !seen.add(line)) {
          return;
        }
        bytes = blankLine(bytes, line);
      }
    }
  }

  @Override
  public BatchProvider<? extends Batch> provider(Path file, Options options) {
    // Detection looks at the first lines only (up to 64 KiB); the provider reads the file itself.
    Detected d = detect(Format.head(file, DETECT_BYTES), options);
    return CsvProvider.builder().dataFile(file).format(d.format()).dataShape(d.columns())
        .settings(options.settings()).build();
  }

  /** The line of a location {@code file:line}, or -1. */
  static int lineOf(String file, String location) {
    if (location.length() > file.length() + 1 && location.startsWith(file + ":")) {
      try {
        return Integer.parseInt(location.substring(file.length() + 1));
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    return -1;
  }

  /** {@code bytes} with physical line {@code line} (1-based) emptied; its line break kept. */
  static byte[] blankLine(byte[] bytes, int line) {
    int start = 0;
    for (int l = 1; l < line && start < bytes.length; start++) {
      if (bytes[start] == '\n') {
        l++;
      }
    }
    int end = start;
    while (end < bytes.length && bytes[end] != '\n' && bytes[end] != '\r') {
      end++;
    }
    byte[] out = new byte[bytes.length - (end - start)];
    System.arraycopy(bytes, 0, out, 0, start);
    System.arraycopy(bytes, end, out, start, bytes.length - end);
    return out;
  }

  /** The first {@code n} non-blank lines split at the delimiter (for detection only; quotes stripped). */
  private static List<String[]> firstLines(byte[] bytes, char delimiter, int n) {
    int start = bytes.length >= 3 && (bytes[0] & 0xff) == 0xEF && (bytes[1] & 0xff) == 0xBB && (bytes[2] & 0xff) == 0xBF ? 3 : 0;
    String text = new String(bytes, start, Math.min(bytes.length - start, DETECT_BYTES), StandardCharsets.UTF_8);
    List<String[]> out = new ArrayList<>();
    for (String line : text.split("\r?\n")) {
      if (!line.isBlank() && out.size() < n) {
        String[] fields = line.split(java.util.regex.Pattern.quote(String.valueOf(delimiter)), -1);
        for (int i = 0; i < fields.length; i++) {
          fields[i] = fields[i].trim().replace("\"", "");
        }
        out.add(fields);
      }
    }
    return out;
  }

  private static boolean isNumber(String s) {
    try {
      Double.parseDouble(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
