package dev.minibatch.shards;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * The local disk under the scheme {@code fullfs}, except that a file whose name contains {@code
 * fullfs.full-on} (configuration) fails with "No space left on device" once {@code fullfs.bytes}
 * bytes were written to it: a disk that fills up in the middle of a file. It counts the files
 * created and not closed yet ({@link #OPEN}).
 */
public final class FullDiskFileSystem extends SchemedLocalFileSystem {
  static final String SCHEME = "fullfs";
  /** The files created through this scheme and not closed yet. */
  static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();

  /** A configuration under which file names containing {@code name} fill up after {@code bytes} bytes. */
  static Configuration conf(String name, long bytes) {
    Configuration conf = conf(SCHEME, FullDiskFileSystem.class);
    conf.set("fullfs.full-on", name);
    conf.setLong("fullfs.bytes", bytes);
    return conf;
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  protected FSDataOutputStream created(Path f, FSDataOutputStream out) throws IOException {
    String on = getConf().get("fullfs.full-on", "");
    long room = on.isEmpty() || !f.getName().contains(on) ? Long.MAX_VALUE : getConf().getLong("fullfs.bytes", 0);
    OPEN.incrementAndGet();
    return new FSDataOutputStream(new FilterOutputStream(out) {
      private long written;
      private boolean closed;

      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        if (written + len > room) {
          throw new IOException("No space left on device");
        }
        out.write(b, off, len);
        written += len;
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          OPEN.decrementAndGet();
        }
        out.close();
      }
    }, null);
  }
}
