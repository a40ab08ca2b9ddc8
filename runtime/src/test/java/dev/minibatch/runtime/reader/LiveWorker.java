package dev.minibatch.runtime.reader;

import java.util.concurrent.TimeUnit;

/** Finds a worker thread by name prefix and waits for it to block; waits by joining, never by sleeping. */
final class LiveWorker {
  private LiveWorker() {}

  static Thread named(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no live thread named " + prefix + "*"));
  }

  /** Waits until {@code t} is parked (blocked on a full queue) or ended. */
  static void awaitBlocked(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (t.isAlive() && t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      t.join(5);
    }
    if (t.isAlive() && t.getState() != Thread.State.WAITING) {
      throw new AssertionError(t.getName() + " did not block: " + t.getState());
    }
  }
}
