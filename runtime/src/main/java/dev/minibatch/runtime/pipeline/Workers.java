package dev.minibatch.runtime.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one stage: starts them as named daemon threads, and stops them by interrupting and
 * joining. Daemon, so a stage forgotten by its user never keeps the JVM alive.
 */
final class Workers {
  /** How long {@link #stop()} waits for workers that ignore the stop request. */
  private static final long JOIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static final System.Logger LOG = System.getLogger(Workers.class.getName());

  private final String stage;
  private final List<Thread> threads = new ArrayList<>();

  Workers(String stage) {
    this.stage = stage;
  }

  /** Starts worker {@code body}; called before the stage is handed to its consumer. */
  void start(Runnable body) {
    Thread t = new Thread(body, "minibatch-worker-" + stage + "-" + threads.size());
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  /**
   * Interrupts the workers (they may be blocked in user code that honours interrupts) and waits for
   * them to end, at most a bounded time. Never called from a worker of this stage.
   */
  void stop() {
    for (Thread t : threads) {
      if (t != Thread.currentThread()) {
        t.interrupt();
      }
    }
    join();
  }

  /** Waits for the workers to end, at most a bounded time; keeps the caller's interrupt status. */
  void join() {
    long deadline = System.nanoTime() + JOIN_TIMEOUT_NANOS;
    boolean interrupted = false;
    for (Thread t : threads) {
      if (t == Thread.currentThread()) {
        continue;
      }
      while (t.isAlive()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          LOG.log(System.Logger.Level.WARNING, "worker " + t.getName()
              + " did not stop within 10 s; it is a daemon thread and is left running");
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        } catch (InterruptedException e) {
          // Keep waiting: a caller stopping a pipeline must not leave threads behind because it was
          // interrupted itself; the status is restored below.
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
