package dev.minibatch.runtime.io;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;

/**
 * A {@link Format} of local files: it implements the {@link java.nio.file.Path} methods, and its
 * {@link Location} methods read the location's local path. A location on another file system
 * ({@code hdfs://}, {@code s3a://}) is not probed as this format, and the other methods refuse it
 * with an {@link IllegalArgumentException} naming the location and the format. The runtime's
 * built-in formats (idx, HDF5, RecordIO, image folders, CSV) are local formats.
 */
public interface LocalFormat extends Format {
  @Override
  boolean probe(java.nio.file.Path file, byte[] head);

  @Override
  Report describe(java.nio.file.Path file, Options options);

  @Override
  void validate(java.nio.file.Path file, Options options, Problems problems);

  @Override
  BatchProvider<? extends Batch> provider(java.nio.file.Path file, Options options);

  @Override
  default boolean probe(Location location, byte[] head) {
    return location.isLocal() && probe(location.path(), head);
  }

  @Override
  default Report describe(Location location, Options options) {
    return describe(local(location), options);
  }

  @Override
  default void validate(Location location, Options options, Problems problems) {
    validate(local(location), options, problems);
  }

  @Override
  default BatchProvider<? extends Batch> provider(Location location, Options options) {
    return provider(local(location), options);
  }

  private java.nio.file.Path local(Location location) {
    if (!location.isLocal()) {
      throw new IllegalArgumentException(location + ": the " + name() + " format reads local files only");
    }
    return location.path();
  }
}
