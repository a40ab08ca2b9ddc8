package dev.minibatch.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code inspect} prints: aligned {@code key: value} fields, class histograms with bars, and
 * indented rows, in the order added.
 */
public final class Report {
  private final List<Object> items = new ArrayList<>();

  private record Field(String key, String value) {}

  private record Histogram(String title, Map<String, Long> counts) {}

  private record Rows(String title, List<String> rows) {}

  /** Adds {@code key: value}. */
  public Report field(String key, String value) {
    items.add(new Field(key, value));
    return this;
  }

  /** Adds a histogram: each class with its count, share and a bar, in the map's order. */
  public Report histogram(String title, Map<String, Long> counts) {
    items.add(new Histogram(title, new java.util.LinkedHashMap<>(counts)));
    return this;
  }

  /** Adds a titled list of rows. */
  public Report rows(String title, List<String> rows) {
    items.add(new Rows(title, List.copyOf(rows)));
    return this;
  }

  /** Prints the report. */
  public void print(PrintWriter out) {
    int width = 0;
    for (Object o : items) {
      if (o instanceof Field f) {
        width = Math.max(width, f.key().length());
      }
    }
    for (Object o : items) {
      if (o instanceof Field f) {
        out.printf(Locale.ROOT, "%-" + (width + 1) + "s %s%n", f.key() + ":", f.value());
      } else if (o instanceof Histogram h) {
        out.println(h.title() + ":");
        long total = h.counts().values().stream().mapToLong(Long::longValue).sum();
        long max = h.counts().values().stream().mapToLong(Long::longValue).max().orElse(1);
        int nameWidth = h.counts().keySet().stream().mapToInt(String::length).max().orElse(1);
        int countWidth = Long.toString(max).length();
        for (Map.Entry<String, Long> e : h.counts().entrySet()) {
          int bar = (int) Math.round(40.0 * e.getValue() / Math.max(1, max));
          out.printf(Locale.ROOT, "  %-" + nameWidth + "s %" + countWidth + "d %5.1f%%  %s%n", e.getKey(), e.getValue(),
              100.0 * e.getValue() / Math.max(1, total), "#".repeat(bar));
        }
      } else if (o instanceof Rows r) {
        out.println(r.title() + ":");
        for (String row : r.rows()) {
          out.println("  " + row);
        }
      }
    }
    out.flush();
  }

  /**
   * Formats {@code v} compactly: integers without a fraction, float32 values as Java prints the
   * float ({@code 5.1}, not {@code 5.099999904632568}), others to 6 significant digits.
   */
  static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    if (!Double.isFinite(v)) {
      return Double.toString(v);
    }
    if ((double) (float) v == v) {
      return Float.toString((float) v);
    }
    return significant(v, 6);
  }

  /** {@code v} rounded to {@code digits} significant digits, without trailing zeros. */
  static String significant(double v, int digits) {
    if (!Double.isFinite(v)) {
      return Double.toString(v);
    }
    return new java.math.BigDecimal(v).round(new java.math.MathContext(digits)).stripTrailingZeros().toPlainString();
  }

  /** {@code (d0, d1, ...)}; {@code ()} for a scalar. */
  static String shape(long... dims) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < dims.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(dims[i]);
    }
    return sb.append(dims.length == 1 ? ",)" : ")").toString();
  }

  /** Up to {@code n} leading values and the count, e.g. {@code [0, 1, 2, ... 784 values]}. */
  static String values(java.util.function.IntToDoubleFunction value, int count, int n) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < Math.min(n, count); i++) {
      sb.append(i == 0 ? "" : ", ").append(number(value.applyAsDouble(i)));
    }
    if (count > n) {
      sb.append(", ... ").append(count).append(" values");
    }
    return sb.append(']').toString();
  }

  /** {@code min, max, mean} of {@code count} values. */
  static String summary(java.util.function.IntToDoubleFunction value, int count) {
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    double sum = 0;
    for (int i = 0; i < count; i++) {
      double v = value.applyAsDouble(i);
      min = Math.min(min, v);
      max = Math.max(max, v);
      sum += v;
    }
    return count == 0 ? "no values" : "min " + number(min) + ", max " + number(max) + ", mean "
        + significant(sum / count, 4);
  }
}
