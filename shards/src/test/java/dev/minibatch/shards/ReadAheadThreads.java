package dev.minibatch.shards;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The shard cache's read-ahead threads, for tests that wait until none runs. */
final class ReadAheadThreads {
  static final String PREFIX = "minibatch-shard-read-ahead-";

  private ReadAheadThreads() {}

  /** The read-ahead threads alive now. */
  static List<Thread> alive() {
    List<Thread> out = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith(PREFIX)) {
        out.add(t);
      }
    }
    return out;
  }

  /** The read-ahead threads still alive after joining them for up to 2 s in all. */
  static List<Thread> awaitNone() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    for (Thread t : alive()) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    return alive();
  }
}
