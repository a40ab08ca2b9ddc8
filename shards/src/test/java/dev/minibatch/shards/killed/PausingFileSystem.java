package dev.minibatch.shards.killed;

import dev.minibatch.shards.SchemedLocalFileSystem;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * The local disk under the scheme {@code pausefs}, except that closing a file whose name contains
 * {@code pausefs.pause-on} (configuration) first prints {@code PAUSED <name>} on standard output and
 * then never returns: a file system that is slow to close an output, made certain, so that a test
 * can kill the writer inside that close.
 */
public final class PausingFileSystem extends SchemedLocalFileSystem {
  static final String PAUSE_ON = "pausefs.pause-on";

  @Override
  public String getScheme() {
    return "pausefs";
  }

  @Override
  protected FSDataOutputStream created(Path f, FSDataOutputStream out) throws IOException {
    String on = getConf().get(PAUSE_ON, "");
    if (on.isEmpty() || !f.getName().contains(on)) {
      return out;
    }
    return new FSDataOutputStream(new PausingOnClose(out, f.getName()), null);
  }

  private static final class PausingOnClose extends FilterOutputStream {
    private final String name;

    PausingOnClose(OutputStream out, String name) {
      super(out);
      this.name = name;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() {
      System.out.println("PAUSED " + name);
      System.out.flush();
      // Paused for good: nothing counts this latch down, so only the kill ends the wait.
      CountDownLatch never = new CountDownLatch(1);
      while (true) {
        try {
          never.await();
        } catch (InterruptedException e) {
          // still paused
        }
      }
    }
  }
}
