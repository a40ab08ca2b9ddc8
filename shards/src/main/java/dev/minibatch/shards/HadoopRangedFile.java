package dev.minibatch.shards;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.spi.RangedFile;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One file of a Hadoop file system read by ranges from several threads. A stream serves one read at a
 * time (S3A's positional read seeks its one stream under a lock), so the file keeps the streams that
 * are idle and opens another when every one is busy: as many as reads ever ran at once. A read that
 * fails closes its stream (an interrupt may have cut it) and the retry opens a fresh one.
 */
final class HadoopRangedFile implements RangedFile {
  private final String location;
  private final FileSystem fs;
  private final Path path;
  private final long size;
  private final long jitter;
  private final ConcurrentLinkedQueue<FSDataInputStream> idle = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;

  /** {@code path} of {@code fs} (which this file owns and closes), {@code size} bytes long. */
  HadoopRangedFile(String location, FileSystem fs, Path path, long size, long jitter) {
    this.location = location;
    this.fs = fs;
    this.path = path;
    this.size = size;
    this.jitter = jitter;
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public void read(long position, ByteBuffer dst) {
    int n = dst.remaining();
    if (position < 0 || position > size - n) {
      throw new IndexOutOfBoundsException(location + ": bytes " + position + ".." + (position + n) + " of a file of "
          + size + " bytes");
    }
    if (closed) {
      throw new IllegalStateException(location + " is closed");
    }
    byte[] bytes = Retries.DEFAULT.run("read", location + " (bytes " + position + " to " + (position + n) + ")",
        jitter, () -> readOnce(position, n));
    dst.put(bytes);
  }

  private byte[] readOnce(long position, int n) throws IOException {
    FSDataInputStream in = idle.poll();
    if (in == null) {
      in = open();
    }
    boolean ok = false;
    try {
      byte[] out = new byte[n];
      in.readFully(position, out, 0, n);
      ok = true;
      return out;
    } finally {
      if (ok && !closed) {
        idle.add(in);
        if (closed) {
          drain(); // closed while this read ran: its stream must not outlive the file
        }
      } else {
        closeQuietly(in);
      }
    }
  }

  /**
   * A stream for random reads: the standard open-file options tell an object store the length (S3A
   * then skips the request for the file's status) and that reads jump around (one ranged request per
   * read, not a stream to the end of the file).
   */
  private FSDataInputStream open() throws IOException {
    try {
      return fs.openFile(path)
          .opt("fs.option.openfile.read.policy", "random")
          .opt("fs.option.openfile.length", Long.toString(size))
          .build()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while opening " + location);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    }
  }

  private void drain() {
    for (FSDataInputStream in = idle.poll(); in != null; in = idle.poll()) {
      closeQuietly(in);
    }
  }

  private static void closeQuietly(FSDataInputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // a stream that failed or is no longer needed: nothing of it is read again
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    drain();
    try {
      fs.close();
    } catch (IOException e) {
      throw IoFailure.of("close the file system of", location, e);
    }
  }

  @Override
  public String toString() {
    return "HadoopRangedFile[" + location + ", " + size + " bytes]";
  }
}
