package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import io.jhdf.HdfFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens HDF5 files so that a corrupt one cannot make jhdf allocate more than the file holds.
 *
 * <p>jhdf reads a file through a {@code FileChannel} by allocating a buffer of the length the file
 * declares (a heap, a B-tree node, an object header block) and only then reading: a 9 KB file can
 * ask for gigabytes. Over an in-memory buffer, jhdf slices instead, and a slice past the end fails
 * without allocating anything. So a file of up to 2 GiB is memory-mapped whole (no copy: its pages
 * are read as jhdf touches them) and opened as a buffer. Larger files, which a buffer cannot
 * address, are opened through jhdf's channel; their structure is then trusted as jhdf trusts it, and
 * the dataset checks of {@link Hdf5Reader} still bound what the data costs.
 */
final class Hdf5Files {
  /** The largest file a {@code ByteBuffer} maps. */
  private static final long MAX_MAPPED = Integer.MAX_VALUE;

  private Hdf5Files() {}

  /**
   * The open file.
   *
   * @param datasets what the caller is after, for the message of a missing file
   * @throws UncheckedIOException naming the file (and the datasets) if it does not exist or cannot be
   *     read
   * @throws FileFormatException naming the file if it is not a regular file or not HDF5
   */
  static HdfFile open(Path file, Object datasets) {
    if (!Files.exists(file)) {
      throw IoFailure.of("read", "HDF5 file " + file + " (datasets " + datasets + ")", new NoSuchFileException(file.toString()));
    }
    if (!Files.isRegularFile(file)) {
      // A directory, a device or a pipe: mapping fails or blocks, and it is not an HDF5 file.
      throw new FileFormatException(file.toString(), "is not a regular file; expected an HDF5 file");
    }
    long size;
    MappedByteBuffer map = null;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      size = channel.size();
      if (size <= MAX_MAPPED) {
        map = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
      }
    } catch (IOException e) {
      throw IoFailure.of("read", "HDF5 file " + file, e);
    }
    MappedByteBuffer mapped = map;
    String what = "the HDF5 superblock and root group (to read datasets " + datasets + ")";
    if (mapped == null) {
      return Jhdf.call(file, what, () -> new HdfFile(file));
    }
    return Jhdf.call(file, what, () -> HdfFile.fromByteBuffer(mapped));
  }

  /**
   * Closes {@code hdf}. A file opened for reading has nothing to lose on close, and the read it
   * served has already succeeded or failed with its own error: a failure here is not reported.
   */
  static void close(HdfFile hdf) {
    try {
      hdf.close();
    } catch (RuntimeException e) {
      // Nothing was written; the channel is released with the object.
    }
  }
}
