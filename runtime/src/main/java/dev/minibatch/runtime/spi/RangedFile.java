package dev.minibatch.runtime.spi;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * A file read by byte ranges: what a {@link RemoteFiles} opens for a location on another file
 * system, so that a reader fetches only the records its order needs. Reads may come from several
 * threads at once; an interrupted read disturbs no other.
 */
public interface RangedFile extends AutoCloseable {
  /** The file's location as the user gave it, for messages. */
  String location();

  /** The file's size in bytes, known when it was opened. */
  long size();

  /**
   * Fills {@code dst} from its position to its limit with the file's bytes from {@code position} on,
   * and advances its position to its limit.
   *
   * @throws UncheckedIOException naming {@link #location()} if the bytes cannot be read (after the
   *     implementation's own retries)
   * @throws IndexOutOfBoundsException if the range runs past {@link #size()}
   */
  void read(long position, ByteBuffer dst);

  /** Releases what the file holds (streams, connections); later reads fail. Closing twice does nothing. */
  @Override
  void close();
}
