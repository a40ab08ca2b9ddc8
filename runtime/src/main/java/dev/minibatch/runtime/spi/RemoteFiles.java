package dev.minibatch.runtime.spi;

import java.io.UncheckedIOException;

/**
 * Opens files at locations with a scheme ({@code hdfs://}, {@code s3a://}) for readers that take a
 * location instead of a local path, such as {@code ImageRecordProvider}'s {@code pathImgrec(String)}.
 * The runtime has no file system of its own beyond the local one: implementations come from other
 * modules (minibatch-shards reads every scheme Hadoop has a FileSystem for) and are found with
 * {@link java.util.ServiceLoader} when the reader is not given one.
 */
public interface RemoteFiles {
  /** Whether this implementation reads locations whose URI scheme is {@code scheme} (lower case, e.g. {@code "hdfs"}). */
  boolean reads(String scheme);

  /**
   * Opens the file at {@code location} for ranged reads; the caller closes it.
   *
   * @throws UncheckedIOException naming the location if there is no such file ("no such file", as
   *     for a local path), it is a directory, or its file system cannot be reached
   */
  RangedFile open(String location);
}
