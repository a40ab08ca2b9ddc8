package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.io.Format;
import java.util.List;

/**
 * The HDF5 format's own options ({@link Format.Options.Builder#with}).
 *
 * @param datasets the datasets to read, by path in the file; empty: every dataset
 */
public record Hdf5Options(List<String> datasets) implements Format.OwnOptions {
  /** Every dataset. */
  public static final Hdf5Options ALL = new Hdf5Options(List.of());

  /** Copies {@code datasets}. */
  public Hdf5Options {
    datasets = List.copyOf(datasets);
  }
}
