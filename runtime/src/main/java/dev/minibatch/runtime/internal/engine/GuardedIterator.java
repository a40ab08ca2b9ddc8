package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.runtime.pipeline.PipelineStats.PaddingStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.memory.MemoryWorkspace;

/**
 * The one shape of an epoch's iterator under an {@link IterationGuard}: {@code hasNext()} first
 * checks that the iteration is still current (else {@link IllegalStateException}), an iteration
 * ends exactly once — at its end, on {@code close()}, or on a failure — releasing what it holds and
 * telling the guard, and after that {@code hasNext()} is false (or throws once the provider is
 * closed).
 *
 * <p>It is also the one place every provider's batches pass from the engine to the consumer, so it
 * keeps the epoch's stats ({@link #stats()}): a stage named after the provider whose items are the
 * batches delivered, whose busy time is the time {@code hasNext()} and {@code next()} spent making
 * batches on the consumer's thread (less what they spent waiting on threaded stages before it),
 * and whose consumer wait is the whole time spent in those calls; threaded stages the subclass
 * runs (reader threads, a prefetch thread) come first, and before them a stage the rows are made
 * from that outlives the iteration (a shard cache's read-ahead), counted over this iteration.
 * Cost: two {@code System.nanoTime()} calls and two uncontended adds per call, nothing allocated.
 *
 * <p>Batches are made outside any ND4J workspace the consumer has open (DL4J opens them around
 * {@code next()}): a workspace would reuse the memory of whatever is made in it — the batch
 * buffers a first {@code next()} allocates, a reader's arrays — under the provider's feet.
 *
 * @param <B> the batch type
 */
public abstract class GuardedIterator<B extends Batch> implements BatchIterator<B>, PipelineIterator<B> {
  private final IterationGuard guard;
  private final long ticket;
  private final StageCounters counters;
  private boolean ended;
  /** Batches delivered by this iteration (on the consumer's thread): the trace's batch number. */
  private long delivered;
  /** Steps of variable-length members delivered (written on the consumer's thread, read by any). */
  private volatile long realSteps;
  private volatile long paddedSteps;

  /** When to hand the provider's live verdict this iteration's stats next ({@link Long#MAX_VALUE}: never). */
  private long verdictDue;
  /** The stats at the last verdict of this iteration, or null before its first. */
  private @Nullable PipelineStats verdictFrom;

  /** The stage the rows wait on, over this iteration (a shard cache's read-ahead), or null. */
  private final StageCounters.@Nullable Window feeding;

  public GuardedIterator(IterationGuard guard, long ticket) {
    this(guard, ticket, null);
  }

  /**
   * An iteration whose rows are made from what a stage outliving it provides ({@code feeding}, e.g.
   * a shard cache's read-ahead): its stats list that stage first, with what it counted during this
   * iteration.
   */
  protected GuardedIterator(IterationGuard guard, long ticket, @Nullable StageCounters feeding) {
    this.guard = guard;
    this.ticket = ticket;
    this.counters = new StageCounters(guard.provider(), 1, 1, () -> 0);
    this.feeding = feeding == null ? null : feeding.window();
    this.verdictDue = guard.verdict().start(System.nanoTime());
  }

  /** True if another batch follows; called only while the iteration is current and not ended. */
  protected abstract boolean more();

  /**
   * The next batch; calls {@link #checkMore()} (never the timed {@link #hasNext()}) to know there is
   * one.
   */
  protected abstract B produce();

  /** The bad samples skipped or replaced in the batches delivered so far, in batch order; none by default. */
  protected java.util.List<BadSample> badSamples() {
    return java.util.List.of();
  }

  /** The threaded stages before this iterator, source first; none by default. */
  protected PipelineStats upstream() {
    return PipelineStats.EMPTY;
  }

  @Override
  @SuppressWarnings("try") // the scope is entered and left, never referenced
  public final B next() {
    long t0 = System.nanoTime();
    B batch;
    try (MemoryWorkspace outside = HostArrays.outsideWorkspaces()) {
      batch = produce();
    }
    long t1 = System.nanoTime();
    counters.addCall(t1, t1 - t0, delivered++);
    if (t1 >= verdictDue) {
      judge(t1);
    }
    if (batch instanceof AbstractBatch<?> a && a.realSteps() + a.paddedSteps() > 0) {
      realSteps += a.realSteps();
      paddedSteps += a.paddedSteps();
    }
    return batch;
  }

  /** The live verdict's interval is over: hands the provider's monitor what this iteration gained since. */
  private void judge(long now) {
    PipelineStats all = stats();
    PipelineStats window = VerdictMonitor.minus(all, verdictFrom);
    verdictFrom = all;
    verdictDue = guard.verdict().judge(window, now);
  }

  /**
   * The epoch's stats: the threaded stages before this iterator, then this iterator's own stage;
   * see the class comment. Safe to call from any thread.
   */
  @Override
  public final PipelineStats stats() {
    PipelineStats up = upstream();
    StageCounters.Window f = feeding;
    if (f != null) {
      up = new PipelineStats(java.util.List.of(f.snapshot())).plus(up);
    }
    StageStats own = counters.snapshot();
    if (!up.stages().isEmpty()) {
      long waited = up.stages().get(up.stages().size() - 1).consumerWaitNanos();
      own = new StageStats(own.name(), own.workers(), own.items(), Math.max(0, own.busyNanos() - waited),
          own.waitInputNanos(), own.blockedOutputNanos(), own.consumerWaitNanos(), own.wallNanos(), own.queueDepth(),
          own.queueCapacity());
    }
    PipelineStats all = up.plus(own);
    java.util.List<BadSample> bad = badSamples();
    if (!bad.isEmpty()) {
      all = all.withBadSamples(bad);
    }
    return realSteps > 0 ? all.withPadding(new PaddingStats(realSteps, paddedSteps)) : all;
  }

  /** Releases what the iteration holds (threads, sources); called once, when it ends. */
  protected void release() {}

  @Override
  @SuppressWarnings("try") // the scope is entered and left, never referenced
  public final boolean hasNext() {
    long t0 = System.nanoTime();
    boolean more;
    try (MemoryWorkspace outside = HostArrays.outsideWorkspaces()) {
      more = checkMore();
    }
    long t1 = System.nanoTime();
    counters.addCall(t1, t1 - t0, -1);
    return more;
  }

  /** {@link #hasNext()} without timing, for {@link #produce()}. */
  public final boolean checkMore() {
    if (ended) {
      guard.checkOpen();
      return false;
    }
    guard.check(ticket);
    if (!more()) {
      end();
      return false;
    }
    return true;
  }

  @Override
  public final void close() {
    end();
  }

  /** Ends the iteration now (idempotent): releases, and lets another thread start one. */
  public final void end() {
    if (!ended) {
      ended = true;
      counters.ended();
      if (feeding != null) {
        feeding.end();
      }
      if (verdictDue != Long.MAX_VALUE) {
        try {
          guard.verdict().carry(VerdictMonitor.minus(stats(), verdictFrom));
        } catch (RuntimeException e) {
          // The verdict is advisory: an epoch ending on a failure must end, and show that failure.
        }
      }
      release();
      guard.end(ticket);
    }
  }

  /** The guard and ticket, for writes under the guard's lock. */
  public final IterationGuard guard() {
    return guard;
  }

  public final long ticket() {
    return ticket;
  }
}
