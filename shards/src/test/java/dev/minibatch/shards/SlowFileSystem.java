package dev.minibatch.shards;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/**
 * The local disk under the scheme {@code slowfs}, except that opening a file whose name contains
 * {@code slowfs.slow-on} (configuration) first counts down {@link #opening} and then takes {@code
 * slowfs.delay-ms} milliseconds (an interrupt ends the wait with an {@link InterruptedIOException}):
 * a slow store, made certain, so that a test knows a read is under way and how long it takes at
 * least.
 */
public final class SlowFileSystem extends SchemedLocalFileSystem {
  static final String SLOW_ON = "slowfs.slow-on";
  static final String DELAY_MS = "slowfs.delay-ms";

  /** Counted down as each slow open begins; a test sets a fresh one before it reads. */
  static volatile CountDownLatch opening = new CountDownLatch(0);
  /** The name of the thread that began the last slow open. */
  static volatile String openedBy = "";

  /** A configuration whose {@code slowfs} opens files named with {@code slowOn} in {@code delayMs} ms. */
  static Configuration conf(String slowOn, long delayMs) {
    Configuration conf = conf("slowfs", SlowFileSystem.class);
    conf.set(SLOW_ON, slowOn);
    conf.setLong(DELAY_MS, delayMs);
    return conf;
  }

  @Override
  public String getScheme() {
    return "slowfs";
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    String on = getConf().get(SLOW_ON, "");
    if (!on.isEmpty() && f.getName().contains(on)) {
      openedBy = Thread.currentThread().getName();
      opening.countDown();
      try {
        // The store's latency itself, which the tests measure as a lower bound of busy and waiting
        // time (a loaded machine only lengthens it); nothing here waits for another thread.
        Thread.sleep(getConf().getLong(DELAY_MS, 0));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while opening " + f);
      }
    }
    return super.open(f, bufferSize);
  }
}
