package dev.minibatch.cli;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The command line's settings that formats read; a null value means "not given: detect it".
 *
 * @param labels a labels file for an idx images file (null: look for the MNIST sibling)
 * @param header whether a CSV file starts with a header line
 * @param labelColumn the CSV label column (0-based, negative from the end)
 * @param classLabels whether CSV labels are class names
 * @param delimiter the CSV field delimiter
 * @param datasets the HDF5 datasets to read (empty: all)
 * @param rows how many first rows {@code inspect} shows
 * @param batchSize rows per batch for {@code bench}
 * @param shuffle whether {@code bench} shuffles
 * @param seed the shuffle seed
 */
public record InputOptions(
    @Nullable Path labels,
    @Nullable Boolean header,
    @Nullable Integer labelColumn,
    @Nullable Boolean classLabels,
    char delimiter,
    List<String> datasets,
    int rows,
    int batchSize,
    boolean shuffle,
    long seed) {

  /** A defensive copy. */
  public InputOptions {
    datasets = List.copyOf(datasets);
  }

  /** Nothing given: every setting detected, 3 rows shown, batches of 128 in order. */
  public static InputOptions defaults() {
    return new InputOptions(null, null, null, null, ',', List.of(), 3, 128, false, 0);
  }
}
