package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.pipeline.Verdict;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.pipeline.LiveVerdict;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The live verdict of one provider ({@link LiveVerdict}): its epochs' iterators hand it the stats
 * they gained since the last verdict — when the interval is over, on the consumer's call that
 * notices, and when an epoch ends, so a window spans short epochs and leaves out the time between
 * them — and it logs a {@link Verdict}, rate-limited: a verdict is logged when it differs from the
 * last one logged (stage or setting) or {@link LiveVerdict#REPEAT} after it. No thread of its own.
 *
 * <p>An epoch read by another provider's epoch (a merged or prefetching provider's, on a worker
 * thread or inside its {@code next()}) stays silent: its consumer is not the model, and the outer
 * epoch's stats list its stages anyway.
 */
final class VerdictMonitor {
  private static final System.Logger LOG = System.getLogger(LiveVerdict.LOGGER);
  private static final long REPEAT_NANOS = LiveVerdict.REPEAT.toNanos();

  private final String provider;
  /** When the current interval ends ({@code System.nanoTime()}); 0 while off or before the first epoch. */
  private long due;
  /** The stats of epochs that ended within the current interval, summed. */
  private @Nullable PipelineStats carried;
  /** Process CPU time of the epochs in the current interval so far, and where the running epoch's began. */
  private long cpuCarried;
  private long cpuFrom = -1;
  private @Nullable Verdict last;
  private long lastLogged;

  VerdictMonitor(String provider) {
    this.provider = provider;
  }

  /** An epoch starts at {@code now}: when its iterator should call {@link #judge} first ({@link Long#MAX_VALUE}: never). */
  synchronized long start(long now) {
    LiveVerdict v = LiveVerdict.current().orElse(null);
    if (v == null) {
      due = 0;
      carried = null;
      return Long.MAX_VALUE;
    }
    if (due == 0) {
      due = now + v.interval().toNanos();
      cpuCarried = 0;
    }
    cpuFrom = workerCpuNanos();
    return due;
  }

  /** An epoch ended: what it gained since its last window counts in the current interval. */
  synchronized void carry(PipelineStats window) {
    if (due == 0) {
      return;
    }
    carried = plus(carried, window);
    long cpu = workerCpuNanos();
    cpuCarried = cpuFrom < 0 || cpu < 0 || cpuCarried < 0 ? -1 : cpuCarried + Math.max(0, cpu - cpuFrom);
    cpuFrom = -1;
  }

  /**
   * The interval is over at {@code now}: judges it, with the running epoch's {@code window}, logs
   * the verdict if there is a new one, and returns when to judge next.
   */
  synchronized long judge(PipelineStats window, long now) {
    LiveVerdict v = LiveVerdict.current().orElse(null);
    PipelineStats all = plus(carried, window);
    long cpu = workerCpuNanos();
    long cpuUsed = cpuFrom < 0 || cpu < 0 || cpuCarried < 0 ? -1 : cpuCarried + Math.max(0, cpu - cpuFrom);
    carried = null;
    cpuCarried = 0;
    cpuFrom = cpu;
    if (v == null) {
      due = 0;
      return Long.MAX_VALUE;
    }
    due = now + v.interval().toNanos();
    if (!nested()) {
      Verdict.of(provider, all, v.threshold(), cpuUsed, Runtime.getRuntime().availableProcessors())
          .ifPresent(verdict -> log(verdict, now));
    }
    return due;
  }

  private void log(Verdict verdict, long now) {
    Verdict l = last;
    boolean same = l != null && l.stage().equals(verdict.stage()) && l.knob().equals(verdict.knob());
    if (same && now - lastLogged < REPEAT_NANOS) {
      return;
    }
    last = verdict;
    lastLogged = now;
    LOG.log(System.Logger.Level.WARNING, verdict.line());
  }

  /**
   * True if the consumer is not the model: a worker thread (a prefetching provider's reading the
   * wrapped epoch), or another epoch's {@code next()} further down the stack (a merged provider's).
   */
  private static boolean nested() {
    if (Workers.onWorkerThread()) {
      return true;
    }
    String epoch = GuardedIterator.class.getName();
    // Runs of next() frames: the compiler's bridge method next() calls the typed one, one run.
    long calls = StackWalker.getInstance().walk(frames -> {
      long runs = 0;
      boolean inRun = false;
      for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
        boolean next = f.getMethodName().equals("next") && f.getClassName().equals(epoch);
        if (next && !inRun) {
          runs++;
        }
        inRun = next;
      }
      return runs;
    });
    return calls > 1;
  }

  /**
   * The CPU time the runtime's worker threads used so far ({@link Workers#workerCpuNanos()}), or -1
   * where the JVM does not tell. Not the process's: its JIT compiler's and garbage collector's work
   * and other threads read as decoding work while the readers slept (a compiler burst at 25 % of
   * two cores).
   */
  private static long workerCpuNanos() {
    return Workers.workerCpuNanos();
  }

  /**
   * The counts of {@code now} less those of {@code from}, stage by stage (the queue's depth that of
   * {@code now}); {@code now} itself where {@code from} is null or lists other stages.
   */
  static PipelineStats minus(PipelineStats now, @Nullable PipelineStats from) {
    if (from == null || !sameStages(now, from)) {
      return now;
    }
    List<StageStats> out = new ArrayList<>();
    for (int i = 0; i < now.stages().size(); i++) {
      out.add(combine(now.stages().get(i), from.stages().get(i), -1));
    }
    return new PipelineStats(out);
  }

  /** {@code a}'s counts plus {@code b}'s, stage by stage; {@code b} where {@code a} is null or lists other stages. */
  static PipelineStats plus(@Nullable PipelineStats a, PipelineStats b) {
    if (a == null || !sameStages(a, b)) {
      return b;
    }
    List<StageStats> out = new ArrayList<>();
    for (int i = 0; i < b.stages().size(); i++) {
      out.add(combine(b.stages().get(i), a.stages().get(i), 1));
    }
    return new PipelineStats(out);
  }

  private static StageStats combine(StageStats x, StageStats y, int sign) {
    return new StageStats(x.name(), x.workers(), x.items() + sign * y.items(), x.busyNanos() + sign * y.busyNanos(),
        x.waitInputNanos() + sign * y.waitInputNanos(), x.blockedOutputNanos() + sign * y.blockedOutputNanos(),
        x.consumerWaitNanos() + sign * y.consumerWaitNanos(), x.wallNanos() + sign * y.wallNanos(), x.queueDepth(),
        x.queueCapacity());
  }

  private static boolean sameStages(PipelineStats a, PipelineStats b) {
    List<StageStats> x = a.stages();
    List<StageStats> y = b.stages();
    if (x.size() != y.size()) {
      return false;
    }
    for (int i = 0; i < x.size(); i++) {
      if (!x.get(i).name().equals(y.get(i).name()) || x.get(i).workers() != y.get(i).workers()) {
        return false;
      }
    }
    return true;
  }
}
