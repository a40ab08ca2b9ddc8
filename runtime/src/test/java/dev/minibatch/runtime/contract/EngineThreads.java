package dev.minibatch.runtime.contract;

import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The engine's threads (named {@code minibatch-...}), found by name and awaited by joining them
 * with a bounded timeout, never by sleeping. The runtime's one cleaner thread ({@code
 * minibatch-cleaner}) lives as long as the JVM and is not counted. Public for tests outside the
 * contract that check a provider's threads end.
 */
public final class EngineThreads {
  private static final String PREFIX = "minibatch-";
  private static final String CLEANER = "minibatch-cleaner";

  private EngineThreads() {}

  /** The live engine threads. */
  public static Set<Thread> live() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(PREFIX) && !t.getName().equals(CLEANER) && t.isAlive())
        .collect(Collectors.toSet());
  }

  /** The live engine threads that are not in {@code before}. */
  static Set<Thread> startedSince(Set<Thread> before) {
    Set<Thread> now = live();
    now.removeAll(before);
    return now;
  }

  /**
   * Waits until no engine thread other than those in {@code before} is alive, asking the garbage
   * collector to run between joins (an iterator dropped without close is stopped by a cleaner);
   * returns the threads still alive after {@code seconds}.
   */
  public static Set<Thread> awaitOnly(Set<Thread> before, long seconds) throws InterruptedException {
    return await(() -> startedSince(before), seconds);
  }

  /**
   * Waits until at most {@code max} engine threads other than those in {@code before} are alive
   * (see {@link #awaitOnly}); returns the live ones.
   */
  static Set<Thread> awaitAtMost(Set<Thread> before, int max, long seconds) throws InterruptedException {
    Set<Thread> alive = await(() -> {
      Set<Thread> now = startedSince(before);
      return now.size() <= max ? Set.of() : now;
    }, seconds);
    return alive.isEmpty() ? startedSince(before) : alive;
  }

  private interface Alive {
    Set<Thread> now();
  }

  private static Set<Thread> await(Alive alive, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      Set<Thread> extra = alive.now();
      if (extra.isEmpty() || System.nanoTime() > deadline) {
        return extra;
      }
      System.gc();
      for (Thread t : extra) {
        t.join(50);
      }
    }
  }

  /** Names and states, sorted, for messages. */
  public static String describe(Set<Thread> threads) {
    return threads.stream()
        .sorted(Comparator.comparing(Thread::getName))
        .map(t -> t.getName() + " (" + t.getState() + ")")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
