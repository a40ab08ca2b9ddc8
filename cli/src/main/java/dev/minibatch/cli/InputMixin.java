package dev.minibatch.cli;

import dev.minibatch.runtime.io.Format;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The options that say how to read a file, shared by inspect, validate and bench. */
final class InputMixin {
  @Option(names = "--format", paramLabel = "NAME",
      description = "The file's format (idx, hdf5, recordio, folder, csv, or a plugged-in one); default: detected from its first "
          + "bytes.")
  @Nullable String format;

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

  Format.Options options(int rows, int batchSize, boolean shuffle, long seed) {
    return Format.Options.builder().labels(labels).header(header).labelColumn(labelColumn).classLabels(classLabels)
        .delimiter(delimiter).datasets(datasets).rows(rows).batchSize(batchSize).shuffle(shuffle).seed(seed).build();
  }
}
