package dev.minibatch.cli;

import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import dev.minibatch.runtime.io.csv.CsvFileOptions;
import dev.minibatch.runtime.io.hdf5.Hdf5Options;
import dev.minibatch.runtime.io.mnist.IdxOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The options that say how to read a location, shared by inspect, validate and bench. */
final class InputMixin {
  @Option(names = "--format", paramLabel = "NAME",
      description = "The format (idx, hdf5, recordio, shards, folder, csv, or a plugged-in one); default: detected "
          + "from the file's first bytes, or the directory's contents.")
  @Nullable String format;

  @Option(names = "--conf", paramLabel = "KEY=VALUE",
      description = "A property of the file system a URI names (hdfs://, s3a://), as Hadoop's configuration spells "
          + "it, e.g. fs.s3a.endpoint=http://127.0.0.1:9000 (repeatable).")
  Map<String, String> conf = new LinkedHashMap<>();

  @Option(names = "--labels", paramLabel = "FILE",
      description = "idx: the labels file of an images file; default: the MNIST sibling "
          + "(t10k-images-idx3-ubyte.gz -> t10k-labels-idx1-ubyte.gz) when it exists.")
  @Nullable Path labels;

  @Option(names = "--header", negatable = true,
      description = "csv: the first line is (--header) or is not (--no-header) a header; default: detected.")
  @Nullable Boolean header;

  @Option(names = "--label-column", paramLabel = "N",
      description = "csv: the label column, 0-based, negative from the end; default: the last column if it holds names.")
  @Nullable Integer labelColumn;

  @Option(names = "--class-labels", negatable = true,
      description = "csv: labels are class names, numbered in order of first appearance.")
  @Nullable Boolean classLabels;

  @Option(names = "--delimiter", paramLabel = "C", defaultValue = ",", description = "csv: the field delimiter (default: ${DEFAULT-VALUE}).")
  char delimiter;

  @Option(names = "--dataset", paramLabel = "PATH",
      description = "hdf5: a dataset to read (repeatable); default: every dataset.")
  List<String> datasets = new ArrayList<>();

  /**
   * {@code arg} as a location: a URI with a scheme ({@code hdfs://}, {@code s3a://}, {@code file:})
   * or a local path, with the {@code --conf} properties.
   */
  Location location(String arg) {
    return Location.parse(arg).withProperties(conf);
  }

  /**
   * The common options given, with each built-in format's own options from its flags, and {@code more}
   * (a command's own, e.g. show's image options).
   */
  Format.Options options(int rows, Settings settings, Format.OwnOptions... more) {
    Format.Options.Builder b = Format.Options.builder().with(new IdxOptions(labels))
        .with(new CsvFileOptions(header, labelColumn, classLabels, delimiter)).with(new Hdf5Options(datasets))
        .rows(rows).settings(settings);
    for (Format.OwnOptions o : more) {
      b.with(o);
    }
    return b.build();
  }
}
