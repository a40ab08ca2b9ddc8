package dev.minibatch.runtime.io.csv;

import dev.minibatch.DType;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.io.csv.CsvTable.NumericArray;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * How to read a CSV file: delimiter and quote, a header row to skip, the element type, an optional
 * label column and whether its values are class names, and how many threads parse. Immutable; see
 * {@link #builder()}. Defaults: comma, double quote, no header, float32, no label column, all
 * available processors.
 */
public final class CsvFormat {
  private final byte delimiter;
  private final byte quote;
  private final boolean header;
  private final DType dtype;
  private final int labelColumn;
  private final boolean hasLabelColumn;
  private final boolean classLabels;
  private final List<String> classNames;
  private final int threads;
  private final int minBlockBytes;

  private CsvFormat(Builder b) {
    this.delimiter = b.delimiter;
    this.quote = b.quote;
    this.header = b.header;
    this.dtype = b.dtype;
    this.labelColumn = b.labelColumn;
    this.hasLabelColumn = b.hasLabelColumn;
    this.classLabels = b.classLabels || !b.classNames.isEmpty();
    this.classNames = Collections.unmodifiableList(new ArrayList<>(b.classNames));
    this.threads = b.threads;
    this.minBlockBytes = b.minBlockBytes;
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The default format: comma separated numbers, no header, float32, no label column. */
  public static CsvFormat defaults() {
    return builder().build();
  }

  /** A builder holding this format's settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.delimiter = delimiter;
    b.quote = quote;
    b.header = header;
    b.dtype = dtype;
    b.labelColumn = labelColumn;
    b.hasLabelColumn = hasLabelColumn;
    b.classLabels = classLabels;
    b.classNames.addAll(classNames);
    b.threads = threads;
    b.minBlockBytes = minBlockBytes;
    return b;
  }

  /** The field delimiter byte. */
  public byte delimiter() {
    return delimiter;
  }

  /** The quote byte. */
  public byte quote() {
    return quote;
  }

  /** Whether the first record is a header to skip. */
  public boolean header() {
    return header;
  }

  /** The element type of the data (and of numeric labels). */
  public DType dtype() {
    return dtype;
  }

  /** Whether a column of each row is the label. */
  public boolean hasLabelColumn() {
    return hasLabelColumn;
  }

  /** The label column (0-based; negative counts from the end, -1 = last); see {@link #hasLabelColumn()}. */
  public int labelColumn() {
    return labelColumn;
  }

  /** Whether label values are class names mapped to indices (int32). */
  public boolean classLabels() {
    return classLabels;
  }

  /** The fixed class names (index = position), or empty to number names by first appearance. */
  public List<String> classNames() {
    return classNames;
  }

  /** The number of threads that parse a large file. */
  public int threads() {
    return threads;
  }

  /** Files smaller than this per thread are parsed on fewer threads. */
  public int minBlockBytes() {
    return minBlockBytes;
  }

  /** Builds {@link CsvFormat}s. */
  public static final class Builder {
    private byte delimiter = ',';
    private byte quote = '"';
    private boolean header;
    private DType dtype = DType.FLOAT32;
    private int labelColumn;
    private boolean hasLabelColumn;
    private boolean classLabels;
    private final List<String> classNames = new ArrayList<>();
    private int threads = Runtime.getRuntime().availableProcessors();
    private int minBlockBytes = 1 << 20;

    private Builder() {}

    /**
     * The field delimiter, an ASCII character; default ','.
     *
     * @throws IllegalArgumentException for a non-ASCII character, a line break, or the quote
     */
    public Builder delimiter(char delimiter) {
      this.delimiter = ascii("delimiter", delimiter);
      return this;
    }

    /** The quote character, an ASCII character; default '"'. Inside quotes, {@code ""} is one quote. */
    public Builder quote(char quote) {
      this.quote = ascii("quote", quote);
      return this;
    }

    /** Skip the first record as a header; default false. */
    public Builder header(boolean header) {
      this.header = header;
      return this;
    }

    /**
     * The element type: FLOAT32 (default), FLOAT64, INT32 or INT64. Integers are parsed exactly;
     * a decimal point or a value out of range is an error.
     */
    public Builder dtype(DType dtype) {
      NumericArray.zeros(dtype, 0);
      this.dtype = dtype;
      return this;
    }

    /** The column holding the label, 0-based; negative counts from the end (-1 = last). */
    public Builder labelColumn(int column) {
      this.labelColumn = column;
      this.hasLabelColumn = true;
      return this;
    }

    /**
     * Treat label values as class names, numbered 0, 1, … in order of first appearance in the file
     * (iris: setosa 0, versicolor 1, virginica 2). Labels are then int32.
     */
    public Builder classLabels(boolean classLabels) {
      this.classLabels = classLabels;
      return this;
    }

    /**
     * Treat label values as class names with these fixed indices (position in the list); a name
     * not in the list is an error. Implies {@link #classLabels(boolean) classLabels(true)}.
     */
    public Builder classNames(List<String> names) {
      if (new java.util.HashSet<>(names).size() != names.size()) {
        throw new IllegalArgumentException("class names must be distinct: " + names);
      }
      classNames.clear();
      classNames.addAll(names);
      return this;
    }

    /** The number of parsing threads; default: the available processors. 1 parses sequentially. */
    public Builder threads(int threads) {
      this.threads = Check.atLeast("threads", threads, 1);
      return this;
    }

    /** The smallest block worth a thread, in bytes; default 1 MiB. Mostly for tests. */
    public Builder minBlockBytes(int bytes) {
      this.minBlockBytes = Check.atLeast("minBlockBytes", bytes, 1);
      return this;
    }

    /** Applies {@code settings} to this builder. */
    public Builder apply(Consumer<? super Builder> settings) {
      settings.accept(this);
      return this;
    }

    /**
     * The format.
     *
     * @throws IllegalArgumentException if class labels are asked for without a label column, or
     *     the delimiter equals the quote
     */
    public CsvFormat build() {
      if ((classLabels || !classNames.isEmpty()) && !hasLabelColumn) {
        throw new IllegalArgumentException("class labels need a label column: set labelColumn(i)");
      }
      if (delimiter == quote) {
        throw new IllegalArgumentException("the delimiter and the quote must differ, both are '" + (char) quote + "'");
      }
      return new CsvFormat(this);
    }

    private static byte ascii(String what, char c) {
      if (c == 0 || c > 127 || c == '\n' || c == '\r') {
        throw new IllegalArgumentException("the " + what + " must be a printable ASCII character or tab, got U+"
            + String.format("%04X", (int) c));
      }
      return (byte) c;
    }
  }
}
