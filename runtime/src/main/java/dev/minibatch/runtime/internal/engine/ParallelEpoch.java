package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.internal.pipeline.HandOff;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSampleBudgetException;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One epoch filled by reader threads (Data Provider Core's Readers): each reader claims the next
 * batch whose slot is free and writes all its rows straight into that slot of a ring of
 * preallocated buffers, through the provider's {@link RowWriter}; a consumer that would wait writes
 * the next free batch itself where the readers copy from memory. A slot is written again only
 * after the consumer released the batch it held. Readers and consumer wait through one {@link
 * HandOff} (no spinning); the first failure stops them and reaches the consumer at its next call;
 * closing (or dropping) the iterator interrupts and joins them through {@link Workers}.
 *
 * @param <B> the batch type
 */
final class ParallelEpoch<B extends AbstractBatch<B>> extends GuardedIterator<B> {
  /** What the readers need; holds no reference to the iterator, so a dropped iterator can be cleaned. */
  record Job<B extends AbstractBatch<B>>(EpochPlan plan, BatchRing<B> ring, BatchWriter writer, BadSampleLedger ledger,
      int readers, boolean consumerWrites, Workers workers, @Nullable Sequences sequences,
      @Nullable ReaderTuner tuner) {}

  private final Shared<B> shared;
  private final Cleaner.Cleanable cleanable;
  private final EpochPlan plan;
  private final boolean autoRelease;
  private final @Nullable Consumer<? super B> delivery;
  private int next;
  /**
   * The time the consumer spent getting its batches, waiting or writing them itself (in-memory
   * readers): what the tuner reads as the loading's share, since a consumer that writes is not
   * waiting and yet is held up.
   */
  private long stalled;

  /** @param feeding the stage the rows are made from, outliving the epoch, or null */
  ParallelEpoch(Job<B> job, IterationGuard guard, long ticket, boolean autoRelease,
      @Nullable Consumer<? super B> delivery, @Nullable StageCounters feeding) {
    super(guard, ticket, feeding);
    this.plan = job.plan();
    this.autoRelease = autoRelease;
    this.delivery = delivery;
    this.next = plan.position();
    this.shared = new Shared<>(job);
    this.cleanable = ThreadCleaner.register(this, shared::stop);
    shared.start();
  }

  /** Stops the readers; holds no reference to the iterator. */
  Runnable stopper() {
    Cleaner.Cleanable c = cleanable;
    return c::clean;
  }

  @Override
  protected boolean more() {
    shared.throwFailure();
    return next < plan.batchCount();
  }

  @Override
  protected void release() {
    cleanable.clean();
  }

  @Override
  protected List<BadSample> badSamples() {
    return shared.job.ledger().delivered();
  }

  @Override
  protected PipelineStats upstream() {
    PipelineStats stats = new PipelineStats(List.of(shared.counters.snapshot()));
    ReaderTuner tuner = shared.job.tuner();
    return tuner == null ? stats : stats.withTuning(List.of(tuner.tuning()));
  }

  /** The ring's buffers. */
  int slots() {
    return shared.slots;
  }

  @Override
  protected B produce() {
    if (!checkMore()) {
      throw new NoSuchElementException("epoch " + plan.epoch() + " is over");
    }
    int j = next;
    ReaderTuner tuner = shared.job.tuner();
    long asked = tuner == null ? 0 : System.nanoTime();
    shared.awaitBatch(j, autoRelease);
    if (tuner != null) {
      stalled += System.nanoTime() - asked;
    }
    int s = j % shared.job.ring().size();
    BadSampleLedger ledger = shared.job.ledger();
    try {
      ledger.deliver(s);
    } catch (RuntimeException e) {
      end();
      throw e;
    }
    B batch = shared.job.ring().slot(s).publish(ledger.rows(s), ledger.pad(s));
    plan.delivered();
    next++;
    if (tuner != null && tuner.delivered(System.nanoTime(), stalled)) {
      shared.retune(tuner.readers(), tuner.ahead());
    }
    if (delivery != null) {
      delivery.accept(batch);
    }
    return batch;
  }

  /** Releases the oldest batch not yet released, when release is not automatic (a multicast's onRelease). */
  void releaseOldest() {
    shared.releaseOne();
  }

  /** The reader threads (to ask whether they stopped), without a reference to this iterator. */
  Workers workers() {
    return shared.workers;
  }

  /**
   * The state the readers and the consumer share, changed only inside calls of {@link #handOff},
   * which does the waiting. Readers own whole batches: each claims the next batch whose slot is
   * free and writes all its rows, so readers never wait for each other and a batch needs one
   * wake-up at most. Where the readers copy from memory, a consumer that would wait for its batch
   * writes the next one itself instead (the readers' work, done by a thread that would otherwise
   * sleep), so two readers and a consumer keep two cores busy.
   */
  private static final class Shared<B extends AbstractBatch<B>> {
    final Job<B> job;
    final Workers workers;
    final HandOff handOff;
    /** Per slot: the batch written into it last, -1 before any. */
    final int[] written;
    /** The readers' stage: busy writing rows, blocked waiting for a free slot; the consumer's waits. */
    final StageCounters counters;
    /** The next batch nobody claimed yet. */
    int claimed;
    /** Batches the consumer has taken. */
    int taken;
    long released;
    /** The batch the consumer waits for (its step is reused, so a batch allocates nothing). */
    int wanted;
    /** The readers that may claim batches: those numbered below it (all, unless tuned). */
    int active;
    /** Batches that may be claimed past the oldest unreleased one: the ring, or less when tuned. */
    int window;
    /** Reader threads started so far (only the consumer's thread starts them). */
    private int started;
    final int slots;
    private final HandOff.Step<Boolean> ready = this::ready;
    /** The consumer's buffers for the batches it writes itself. */
    private final int[] helperIndices;
    private final int[] helperSteps;

    Shared(Job<B> job) {
      this.job = job;
      this.workers = job.workers();
      this.slots = job.ring().size();
      this.written = new int[slots];
      Arrays.fill(written, -1);
      this.claimed = job.plan().position();
      this.released = job.plan().position();
      this.taken = job.plan().position();
      this.helperIndices = new int[job.plan().batchSize()];
      this.helperSteps = new int[job.sequences() == null ? 0 : job.sequences().groups()];
      ReaderTuner tuner = job.tuner();
      this.active = tuner == null ? job.readers() : tuner.readers();
      this.window = tuner == null ? slots : Math.min(slots, tuner.ahead() + 2);
      this.counters = new StageCounters(workers.stage(), active, window, this::depth);
      this.handOff = new HandOff(counters, job.readers());
    }

    /** Batches written and not yet taken by the consumer, in order. */
    private int depth() {
      return handOff.locked(() -> {
        int k = taken;
        while (k < job.plan().batchCount() && written[k % slots] == k) {
          k++;
        }
        return k - taken;
      });
    }

    void start() {
      startUpTo(active);
    }

    private void startUpTo(int readers) {
      while (started < readers) {
        int id = started++;
        workers.start(() -> run(id));
      }
    }

    /**
     * From now on {@code readers} readers write, up to {@code ahead} batches ahead of the one the
     * consumer waits for (the tuner's choice; on the consumer's thread). Readers numbered above
     * {@code readers} finish the batch they write and then wait; more readers are started when
     * needed.
     */
    void retune(int readers, int ahead) {
      handOff.free(() -> {
        active = readers;
        window = Math.min(slots, ahead + 2);
      });
      counters.resized(readers, Math.min(slots, ahead + 2));
      if (!handOff.stopped()) {
        startUpTo(readers);
      }
    }

    void throwFailure() {
      handOff.throwFailure();
    }

    /**
     * Releases batches before {@code j - 1} (when automatic) and waits until batch {@code j} is
     * written. Batch {@code j - 1} stays intact while {@code j} is taken, as in the consumer-thread
     * ring of two: a wrapper that takes the next batch while its own consumer still works on this
     * one (a prefetching wrapper over a provider it does not know) must not see it overwritten.
     */
    void awaitBatch(int j, boolean release) {
      if (release && released < j - 1) {
        handOff.free(() -> released = j - 1);
      }
      wanted = j;
      // The consumer's wait is not interruptible, as before the hand-off existed: a batch is
      // either delivered, or the epoch failed or was closed.
      if (handOff.takeUninterruptibly(ready) == null) {
        throw new IllegalStateException("this epoch was closed");
      }
    }

    /**
     * The consumer's step: batch {@link #wanted} is written; else, if another batch can be claimed,
     * writes it without the lock and looks again.
     */
    private @Nullable Boolean ready() {
      while (written[wanted % slots] != wanted) {
        if (!job.consumerWrites() || handOff.stopped()) {
          return null;
        }
        int j = claim();
        if (j < 0) {
          return null;
        }
        handOff.unlocked(() -> writeBatch(j, helperIndices, helperSteps, false));
      }
      taken = wanted + 1;
      return Boolean.TRUE;
    }

    /** The next batch whose slot is free, now claimed; -1 if there is none (yet). */
    private int claim() {
      if (claimed < job.plan().batchCount() && claimed < released + window) {
        return claimed++;
      }
      return -1;
    }

    void releaseOne() {
      handOff.free(() -> released++);
    }

    /** Stops and joins the readers (from the consumer, the guard or the cleaner, never from a reader). */
    void stop() {
      handOff.close();
      counters.ended();
      workers.stop();
    }

    private void run(int id) {
      try {
        fill(id);
      } finally {
        handOff.finish();
      }
    }

    private void fill(int id) {
      int[] idx = new int[job.plan().batchSize()];
      int[] groupSteps = new int[job.sequences() == null ? 0 : job.sequences().groups()];
      HandOff.Step<Integer> claimStep = () -> {
        if (claimed >= job.plan().batchCount()) {
          return -1;
        }
        if (id >= active) {
          return null;
        }
        int j = claim();
        return j < 0 ? null : j;
      };
      while (true) {
        Integer j;
        try {
          j = handOff.claim(claimStep);
        } catch (InterruptedException e) {
          // Only a stop interrupts a reader.
          return;
        }
        if (j == null || j < 0 || !writeBatch(j, idx, groupSteps, true)) {
          return;
        }
      }
    }

    /**
     * Writes all rows of batch {@code j} and marks it written, waking the consumer if it waits for
     * it; false if the write failed (the failure is recorded). The stage counts every batch, but
     * only a reader's time as its busy time: the consumer's writes are time it did not wait.
     */
    private boolean writeBatch(int j, int[] idx, int[] groupSteps, boolean reader) {
      long t1 = System.nanoTime();
      EpochPlan plan = job.plan();
      int s = j % slots;
      BatchSlot<B> slot = job.ring().slot(s);
      try {
        job.writer().write(plan, j, slot, s, idx, groupSteps, job.ledger());
      } catch (Throwable t) {
        fail(t, t instanceof BadSampleBudgetException ? StageFailedException.NO_SAMPLE
            : job.writer().failingSample(t, plan, j, slot, idx));
        return false;
      }
      if (reader) {
        long t2 = System.nanoTime();
        counters.addBatchBusy(t2, t2 - t1, j);
      }
      counters.addItems(1);
      handOff.offer(() -> {
        written[s] = j;
        return j == wanted;
      });
      return true;
    }

    private void fail(Throwable t, long sample) {
      handOff.fail(StageFailedException.of(workers.stage(), sample, t));
    }
  }
}
