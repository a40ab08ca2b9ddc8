package dev.minibatch.runtime.internal.pipeline;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Counts and awaits the engine's worker threads; waits by joining them, never by sleeping. */
public final class LiveThreads {
  private LiveThreads() {}

  /** The live worker threads of the pipeline engine. */
  public static Set<Thread> workers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("minibatch-") && !t.getName().equals("minibatch-cleaner") && t.isAlive())
        .collect(Collectors.toSet());
  }

  /**
   * Waits until no worker threads other than {@code before} are alive, asking the garbage collector
   * to run between joins (iterators dropped without close are stopped by the cleaner); returns the
   * threads still alive after {@code seconds}.
   */
  public static Set<Thread> awaitOnly(Set<Thread> before, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      Set<Thread> extra = workers();
      extra.removeAll(before);
      if (extra.isEmpty() || System.nanoTime() > deadline) {
        return extra;
      }
      System.gc();
      for (Thread t : extra) {
        t.join(50);
      }
    }
  }
}
