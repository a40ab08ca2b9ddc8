package dev.minibatch.runtime.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Several threads running epochs over one provider at once. The rule: either their iterations are
 * independent, or the provider refuses conflicting calls with {@link IllegalStateException} from
 * {@code iterator()}, {@code hasNext()} or {@code next()} (the thread then starts over) — never a
 * wrong row, never another exception. Every row is checked right after {@code next()} returned
 * its batch.
 */
final class SharedUse {
  private SharedUse() {}

  /** What the threads saw. */
  record Outcome(int epochs, long batches, int refusals, List<String> wrongRows, List<Throwable> unexpected,
      List<String> stuck) {
    void assertConforming() {
      if (!unexpected.isEmpty()) {
        fail("a thread got an exception other than IllegalStateException from iterator()/hasNext()/next() ("
            + summary() + ")", unexpected.get(0));
      }
      assertTrue(wrongRows.isEmpty(), "a thread received a wrong row: " + wrongRows + " (" + summary() + ")");
      assertTrue(stuck.isEmpty(), "threads did not finish: " + stuck + " (" + summary() + ")");
      assertTrue(batches > 0, "no thread received a single batch (" + summary() + ")");
    }

    String summary() {
      return epochs + " complete epochs, " + batches + " batches checked, " + refusals + " IllegalStateExceptions";
    }
  }

  /**
   * Runs {@code threads} threads, each reading epochs of {@code p} (whose samples are {@code 0 ..
   * n - 1}) until it completed {@code maxEpochs}, {@code millis} passed, or any thread saw a
   * violation.
   */
  static Outcome run(ProviderFixture f, BatchProvider<? extends Batch> p, int n, int threads, int maxEpochs, long millis)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger epochs = new AtomicInteger();
    AtomicLong batches = new AtomicLong();
    AtomicInteger refusals = new AtomicInteger();
    List<String> wrong = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    List<Thread> users = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String name = "contract-user-" + t;
      Thread th = new Thread(() -> {
        int done = 0;
        while (!stop.get() && done < maxEpochs && System.nanoTime() < deadline) {
          try {
            if (readEpoch(f, p, n, name, deadline, batches, wrong)) {
              done++;
              epochs.incrementAndGet();
            }
          } catch (IllegalStateException e) {
            refusals.incrementAndGet();
          } catch (Throwable e) {
            unexpected.add(e);
          }
          if (!wrong.isEmpty() || !unexpected.isEmpty()) {
            stop.set(true);
          }
        }
      }, name);
      th.setDaemon(true);
      users.add(th);
    }
    users.forEach(Thread::start);
    List<String> stuck = new ArrayList<>();
    long joinUntil = deadline + TimeUnit.SECONDS.toNanos(2);
    for (Thread th : users) {
      th.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinUntil - System.nanoTime())));
      if (th.isAlive()) {
        stuck.add(th.getName() + " " + th.getState() + " at " + List.of(th.getStackTrace()).subList(0,
            Math.min(8, th.getStackTrace().length)));
        stop.set(true);
        th.interrupt();
      }
    }
    return new Outcome(epochs.get(), batches.get(), refusals.get(), List.copyOf(wrong), List.copyOf(unexpected), stuck);
  }

  /**
   * One epoch; true if read to its end. An IllegalStateException from iterator(), hasNext() or
   * next() propagates (a refusal); anything thrown while checking a batch is a violation.
   */
  private static boolean readEpoch(ProviderFixture f, BatchProvider<? extends Batch> p, int n, String name, long deadline,
      AtomicLong batches, List<String> wrong) {
    BatchIterator<? extends Batch> it = p.iterator();
    try {
      while (it.hasNext()) {
        Batch b = it.next();
        String w;
        try {
          w = violation(f, b, n);
        } catch (RuntimeException e) {
          // Not a refusal: the batch was handed out, and reading it failed.
          throw new AssertionError("reading a delivered batch threw " + e, e);
        }
        if (w != null) {
          wrong.add(name + ": " + w);
          return false;
        }
        batches.incrementAndGet();
        if (System.nanoTime() > deadline) {
          return false;
        }
      }
      return true;
    } finally {
      try {
        it.close();
      } catch (IllegalStateException e) {
        // Closing a superseded iterator may be refused too.
      }
    }
  }

  private static @Nullable String violation(ProviderFixture f, Batch b, int n) {
    int rows = b.rows();
    if (rows < 1 || rows > 7 || b.pad() != 0 || b.countSamples() != rows) {
      return "a batch of " + rows + " rows, pad " + b.pad() + ", countSamples " + b.countSamples();
    }
    for (int r = 0; r < rows; r++) {
      long i = b.sampleIndex(r);
      if (i < 0 || i >= n) {
        return "row " + r + " has sample index " + i;
      }
      if (!f.holds(b, r, i)) {
        return "row " + r + " should hold sample " + i + " but holds " + Batches.describe(b, r);
      }
    }
    return null;
  }
}
