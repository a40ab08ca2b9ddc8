package dev.minibatch.runtime.internal.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one stage — the one way the runtime starts and stops threads. Every thread is a
 * daemon named {@code minibatch-<stage>-<n>} ({@code n} counts the stage's threads from 0), so a
 * forgotten stage never keeps the JVM alive and a thread dump says what each thread is for. {@link
 * #stop()} interrupts and joins; it never waits longer than a bounded time for code that ignores
 * interrupts.
 */
public final class Workers {
  /** How long {@link #stop()} waits for workers that ignore the stop request. */
  private static final long JOIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static final System.Logger LOG = System.getLogger(Workers.class.getName());

  private final String stage;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean joined;

  /** The threads of stage {@code stage} (a short name: {@code xmap}, {@code buffered}, {@code hdf5-read}). */
  public Workers(String stage) {
    this.stage = stage;
  }

  /** The thread name of worker {@code n} of {@code stage}. */
  public static String threadName(String stage, int n) {
    return "minibatch-" + stage + "-" + n;
  }

  /** The stage's name. */
  public String stage() {
    return stage;
  }

  /** True on a thread this engine started (a stage's worker), false on the consumer's and others. */
  public static boolean onWorkerThread() {
    return Thread.currentThread() instanceof WorkerThread;
  }

  /** The workers running now, whose CPU time {@link #workerCpuNanos()} reads. */
  private static final java.util.Set<WorkerThread> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** The CPU time of the workers that have ended, each added as it ends. */
  private static final java.util.concurrent.atomic.LongAdder ENDED_CPU = new java.util.concurrent.atomic.LongAdder();
  private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * The CPU time every worker thread of the runtime has used so far, those running and those that
   * ended, in nanoseconds; -1 where the JVM does not measure threads' CPU time. Unlike the
   * process's CPU time it leaves out the consumer, the JIT compiler, the garbage collector and
   * native libraries' own threads, so the live verdict tells reader threads that compute from
   * reader threads that wait.
   */
  public static long workerCpuNanos() {
    if (!THREADS.isThreadCpuTimeSupported() || !THREADS.isThreadCpuTimeEnabled()) {
      return -1;
    }
    long sum = ENDED_CPU.sum();
    for (WorkerThread t : LIVE) {
      sum += Math.max(0, THREADS.getThreadCpuTime(t.getId()));
    }
    return sum;
  }

  /** A worker, told apart from the consumer's threads by its class; it counts its CPU time as it ends. */
  private static final class WorkerThread extends Thread {
    WorkerThread(Runnable body, String name) {
      super(body, name);
    }

    @Override
    public void run() {
      LIVE.add(this);
      try {
        super.run();
      } finally {
        // Added before it leaves the live set: a reader in between counts it twice for a moment,
        // never not at all.
        long cpu = THREADS.isThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
        if (cpu > 0) {
          ENDED_CPU.add(cpu);
        }
        LIVE.remove(this);
      }
    }
  }

  /** Starts worker {@code body}; called before the stage is handed to its consumer. */
  public synchronized void start(Runnable body) {
    Thread t = new WorkerThread(body, threadName(stage, threads.size()));
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  /**
   * Interrupts the workers (they may be blocked in user code that honours interrupts) and waits for
   * them to end, at most a bounded time. A worker calling it skips itself.
   */
  public void stop() {
    for (Thread t : snapshot()) {
      if (t != Thread.currentThread()) {
        t.interrupt();
      }
    }
    join();
  }

  /** Waits for the workers to end, at most a bounded time; keeps the caller's interrupt status. */
  public void join() {
    long deadline = System.nanoTime() + JOIN_TIMEOUT_NANOS;
    boolean interrupted = false;
    boolean all = true;
    for (Thread t : snapshot()) {
      if (t == Thread.currentThread()) {
        all = false;
        continue;
      }
      while (t.isAlive()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          all = false;
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
    joined = all;
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits, without a time limit, for workers that finish on their own (a parallel parse); if the
   * caller is interrupted, stops them and throws.
   *
   * @throws IllegalStateException if interrupted while waiting (the interrupt status is kept)
   */
  public void awaitAll() {
    for (Thread t : snapshot()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        stop();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the " + stage + " workers", e);
      }
    }
    joined = true;
  }

  /** True once a {@link #join()} saw every worker end. */
  public boolean stopped() {
    return joined;
  }

  private synchronized List<Thread> snapshot() {
    return new ArrayList<>(threads);
  }
}
