package dev.minibatch.cli;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import java.nio.file.Path;

/**
 * A file format the CLI can inspect, validate and bench. The built-in ones are idx (MNIST), HDF5,
 * RecordIO and CSV; another format plugs in as a {@link java.util.ServiceLoader} service ({@code
 * META-INF/services/dev.minibatch.cli.InputFormat}) and is tried after idx, HDF5 and RecordIO and before CSV,
 * which recognises any text. Implementations reuse the runtime's parsers and report their {@link
 * dev.minibatch.runtime.io.FileFormatException} messages; none parses on its own.
 */
public interface InputFormat {
  /** The name {@code --format} selects, e.g. {@code "csv"}. */
  String name();

  /**
   * True if {@code head} — the file's first bytes, decompressed when the file is gzip — looks like
   * this format.
   */
  boolean recognizes(Path file, byte[] head);

  /**
   * Reads {@code file} and describes it: shapes, element types, counts, a class histogram where
   * there are classes, the first rows.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException if the file cannot be read as this format
   */
  Report inspect(Path file, InputOptions options);

  /**
   * Walks every record of {@code file}, reporting each problem with its location, until the end or
   * until {@code problems} is full.
   */
  void validate(Path file, InputOptions options, Problems problems);

  /**
   * A provider over {@code file} with the given batch settings, for {@code bench}.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException if the file cannot be read as this format
   * @throws IllegalArgumentException if the options do not say enough to build one
   */
  BatchProvider<? extends Batch> provider(Path file, InputOptions options);
}
