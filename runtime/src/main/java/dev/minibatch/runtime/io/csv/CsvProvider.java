package dev.minibatch.runtime.io.csv;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.internal.io.FileEngine;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.FileBuilder;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.FileProvider;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.csv.CsvTable.NumericArray;
import dev.minibatch.shape.Shape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Rows of CSV files as samples (MXNet's {@code CSVIter}): each data row holds {@code
 * prod(dataShape)} values reshaped row-major to {@code dataShape}; labels come from a label file
 * (each row {@code prod(labelShape)} values), from a label column of the data file, or are all 0.
 *
 * <pre>{@code
 * CsvProvider iris = CsvProvider.builder()
 *     .dataFile(Path.of("iris.csv"))
 *     .format(f -> f.header(true).labelColumn(4).classLabels(true))
 *     .dataShape(4).batchSize(30).shuffle(true).seed(1)
 *     .build();
 * }</pre>
 *
 * <p>The files are parsed once when the provider is built (in parallel for large files, read in
 * pieces rather than whole) and the parsed values stay on the Java heap as the provider's rows;
 * labels have the format's dtype (class indices included), as in CSVIter.
 */
public final class CsvProvider extends FileProvider {
  private final List<String> classNames;

  private CsvProvider(Sampling sampling, Map<String, RowSource> data, Map<String, RowSource> labels, List<String> classNames) {
    super(new FileEngine("CsvProvider", data, labels, sampling));
    this.classNames = List.copyOf(classNames);
  }


  /**
   * The {@link Format} of CSV files; the header, the label column and class-name labels are detected unless the options say: what
   * {@code minibatch inspect}, {@code validate} and {@code bench} use.
   */
  public static Format format() {
    return new CsvFileFormat();
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The class names by index, when the format maps class names; else empty. */
  public List<String> classNames() {
    return classNames;
  }

  /** Builds {@link CsvProvider}s; the sampling settings are {@link ProviderBuilder}'s. */
  public static final class Builder extends FileBuilder<Builder> {
    private @Nullable Path dataFile;
    private @Nullable Path labelFile;
    private @Nullable Shape dataShape;
    private Shape labelShape = Shape.scalar();
    private CsvFormat format = CsvFormat.defaults();

    private Builder() {}

    /** The data file, or a directory whose regular files are read in name order (MXNet {@code data_csv}). Required. */
    public Builder dataFile(Path file) {
      this.dataFile = file;
      return this;
    }

    /** The label file or directory (MXNet {@code label_csv}); it must have as many rows as the data. */
    public Builder labelFile(Path file) {
      this.labelFile = file;
      return this;
    }

    /** The shape of one sample (MXNet {@code data_shape}); each row holds its element count. Required. */
    public Builder dataShape(long... dims) {
      this.dataShape = Shape.of(dims);
      return this;
    }

    /** The shape of one label (MXNet {@code label_shape}); default scalar, i.e. a batch label of shape (batch). */
    public Builder labelShape(long... dims) {
      this.labelShape = Shape.of(dims);
      return this;
    }

    /** How to read the files: delimiter, header, dtype, label column, class names, threads. */
    public Builder format(CsvFormat format) {
      this.format = format;
      return this;
    }

    /** Adjusts the format with {@code settings}. */
    public Builder format(Consumer<CsvFormat.Builder> settings) {
      this.format = format.toBuilder().apply(settings).build();
      return this;
    }

    /**
     * CSVIter's {@code round_batch}. True is {@link LastBatch#PAD_CONTINUE}, as MXNet: the last batch
     * is padded with the first rows of the next epoch, which then starts after them. False is {@link
     * LastBatch#PAD_CONSTANT}: MXNet delivers the last batch with its {@code pad} set and whatever the
     * buffer held in the padding rows; here those rows hold the padding constant (default 0).
     */
    public Builder roundBatch(boolean roundBatch) {
      return lastBatch(roundBatch ? LastBatch.PAD_CONTINUE : LastBatch.PAD_CONSTANT);
    }

    /**
     * Parses the files and builds the provider.
     *
     * @throws FileFormatException for rows of the wrong length (file, line, both counts), an
     *     unparsable field (file, line, column), or a label file whose row count differs
     * @throws IllegalArgumentException for a label file together with a label column
     */
    public CsvProvider build() {
      Sampling sampling = Sampling.resolve(settings());
      Path dataPath = Objects.requireNonNull(dataFile, "CsvProvider: set dataFile(path)");
      Shape shape = dataShape;
      if (shape == null) {
        throw new IllegalStateException("CsvProvider: no data shape: call dataShape(dims) — each row holds prod(dims) "
            + "values, reshaped row-major (MXNet CSVIter's data_shape)");
      }
      if (labelFile != null && format.hasLabelColumn()) {
        throw new IllegalArgumentException("labels from both a label file and a label column; choose one");
      }
      int fields = Math.toIntExact(shape.elementCount()) + (format.hasLabelColumn() ? 1 : 0);
      CsvParser.Parts table;
      try {
        table = CsvParser.parseParts(files(dataPath), format, fields);
      } catch (FileFormatException e) {
        throw explainFieldCount(e, shape);
      }
      if (table.rows() == 0) {
        throw new FileFormatException(dataPath.toString(), "has no data rows");
      }
      long n = table.rows();
      NumericArray labels;
      Shape labelSampleShape = labelShape;
      if (labelFile != null) {
        CsvTable lt = CsvParser.parseAll(files(labelFile), format, Math.toIntExact(labelShape.elementCount()));
        if (lt.rows() != table.rows()) {
          throw new FileFormatException(labelFile.toString(), "has " + lt.rows() + " label rows but " + dataPath + " has "
              + table.rows() + " data rows; they must be equal");
        }
        labels = lt.data();
      } else if (table.labels() != null) {
        labels = table.labels();
        labelSampleShape = Shape.scalar();
      } else {
        labels = NumericArray.zeros(format.dtype(), Math.toIntExact(n * labelShape.elementCount()));
      }
      if (labels.dtype() != format.dtype()) {
        labels = convert(labels, format.dtype());
      }
      // The parsed blocks are the provider's rows as they are: no copy into native memory.
      Object[] blocks = new Object[table.data().size()];
      for (int i = 0; i < blocks.length; i++) {
        blocks[i] = table.data().get(i).array();
      }
      Map<String, RowSource> data = new LinkedHashMap<>();
      data.put(dataName(), RowSource.heap(format.dtype(), shape, blocks, table.partRows()));
      Map<String, RowSource> label = new LinkedHashMap<>();
      label.put(labelName(), RowSource.heap(format.dtype(), labelSampleShape, new Object[] {labels.array()},
          new int[] {Math.toIntExact(n)}));
      return new CsvProvider(sampling, data, label, table.classNames());
    }

    /** A wrong field count, with where the expected count comes from: the data shape and the label column. */
    private FileFormatException explainFieldCount(FileFormatException e, Shape shape) {
      String detail = String.valueOf(e.getMessage()).substring(e.file().length() + 2);
      if (!detail.startsWith("row has ")) {
        return e;
      }
      String dims = java.util.Arrays.stream(shape.toLongArray()).mapToObj(Long::toString)
          .collect(java.util.stream.Collectors.joining(", "));
      return new FileFormatException(e.file(), detail + " (dataShape(" + dims + ") = " + shape.elementCount() + " values"
          + (format.hasLabelColumn() ? " + 1 label column" : "") + ")", e);
    }

    private static NumericArray convert(NumericArray a, DType dtype) {
      switch (dtype) {
        case FLOAT32:
          return NumericArray.of(a.toFloatArray(), a.length());
        case INT64:
          return NumericArray.of(a.toLongArray(), a.length());
        case INT32:
          return NumericArray.of(a.toIntArray(), a.length());
        default:
          double[] d = new double[a.length()];
          for (int i = 0; i < d.length; i++) {
            d[i] = a.getDouble(i);
          }
          return NumericArray.of(d, d.length);
      }
    }

    private static List<Path> files(Path path) {
      if (!Files.isDirectory(path)) {
        return List.of(path);
      }
      try (Stream<Path> s = Files.list(path)) {
        List<Path> files = s.filter(Files::isRegularFile).sorted().toList();
        if (files.isEmpty()) {
          throw new FileFormatException(path.toString(), "is a directory without files");
        }
        return files;
      } catch (IOException e) {
        throw IoFailure.of("list", path, e);
      }
    }
  }
}
