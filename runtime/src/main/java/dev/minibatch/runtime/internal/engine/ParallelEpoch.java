package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.internal.pipeline.HandOff;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One epoch filled by reader threads (Data Provider Core's Readers): reader {@code w} of {@code n}
 * writes rows {@code [rows·w/n, rows·(w+1)/n)} of every batch straight into a slot of a ring of
 * preallocated buffers, through the provider's {@link RowWriter}. A slot is written again only
 * after the consumer released the batch it held. Readers and consumer wait through one {@link
 * HandOff} (no spinning); the first failure stops them and reaches the consumer at its next call;
 * closing (or dropping) the iterator interrupts and joins them through {@link Workers}.
 *
 * @param <B> the batch type
 */
final class ParallelEpoch<B extends AbstractBatch<B>> extends GuardedIterator<B> {
  /** What the readers need; holds no reference to the iterator, so a dropped iterator can be cleaned. */
  record Job<B extends AbstractBatch<B>>(EpochPlan plan, BatchRing<B> ring, RowWriter rows, double[] padValues,
      int readers, Workers workers, @Nullable Sequences sequences) {}

  private final Shared<B> shared;
  private final Cleaner.Cleanable cleanable;
  private final EpochPlan plan;
  private final boolean autoRelease;
  private final @Nullable Consumer<? super B> delivery;
  private final int[] consumerIndices;
  private int next;

  ParallelEpoch(Job<B> job, IterationGuard guard, long ticket, boolean autoRelease,
      @Nullable Consumer<? super B> delivery) {
    super(guard, ticket);
    this.plan = job.plan();
    this.autoRelease = autoRelease;
    this.delivery = delivery;
    this.consumerIndices = new int[plan.batchSize()];
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
  protected PipelineStats upstream() {
    return new PipelineStats(java.util.List.of(shared.counters.snapshot()));
  }

  @Override
  protected B produce() {
    if (!checkMore()) {
      throw new NoSuchElementException("epoch " + plan.epoch() + " is over");
    }
    int j = next;
    shared.awaitBatch(j, autoRelease);
    BatchSlot<B> slot = shared.job.ring().slot(j % shared.job.ring().size());
    int rows = plan.rows(j);
    int samples = plan.sampleRows(j);
    plan.indices(j, consumerIndices);
    long[] idx = slot.sampleIndices();
    for (int r = 0; r < rows; r++) {
      idx[r] = r < samples ? consumerIndices[r] : EpochPlan.CONSTANT_PAD;
    }
    B batch = slot.publish(rows, plan.pad(j));
    plan.delivered();
    next++;
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
   * which does the waiting: each reader is a producer that waits for a free slot, the consumer
   * waits until every reader has written the batch it needs.
   */
  private static final class Shared<B extends AbstractBatch<B>> {
    final Job<B> job;
    final Workers workers;
    final HandOff handOff;
    /** Per reader: the batches before this one are written. */
    final int[] completed;
    /** The readers' stage: busy writing rows, blocked waiting for a free slot; the consumer's waits. */
    final StageCounters counters;
    /** Batches the consumer has taken. */
    int taken;
    long released;
    /** The batch the consumer waits for (its step is reused, so a batch allocates nothing). */
    int wanted;
    private final HandOff.Step<Boolean> written = this::written;

    Shared(Job<B> job) {
      this.job = job;
      this.workers = job.workers();
      this.completed = new int[job.readers()];
      Arrays.fill(completed, job.plan().position());
      this.released = job.plan().position();
      this.taken = job.plan().position();
      this.counters = new StageCounters(workers.stage(), job.readers(), job.ring().size(), this::depth);
      this.handOff = new HandOff(counters, job.readers());
    }

    /** Batches written by every reader and not yet taken by the consumer. */
    private int depth() {
      return handOff.locked(() -> {
        int ready = Integer.MAX_VALUE;
        for (int c : completed) {
          ready = Math.min(ready, c);
        }
        return Math.max(0, ready - taken);
      });
    }

    void start() {
      for (int w = 0; w < job.readers(); w++) {
        int worker = w;
        workers.start(() -> run(worker));
      }
    }

    void throwFailure() {
      handOff.throwFailure();
    }

    /** Releases batches before {@code j} (when automatic) and waits until every reader has written batch {@code j}. */
    void awaitBatch(int j, boolean release) {
      if (release && released < j) {
        handOff.free(() -> released = j);
      }
      wanted = j;
      // The consumer's wait is not interruptible, as before the hand-off existed: a batch is
      // either delivered, or the epoch failed or was closed.
      if (handOff.takeUninterruptibly(written) == null) {
        throw new IllegalStateException("this epoch was closed");
      }
    }

    /** The consumer's step: batch {@link #wanted} is written by every reader. */
    private @Nullable Boolean written() {
      for (int c : completed) {
        if (c <= wanted) {
          return null;
        }
      }
      taken = wanted + 1;
      return Boolean.TRUE;
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

    private void run(int w) {
      try {
        fill(w);
      } finally {
        handOff.finish();
      }
    }

    private void fill(int w) {
      EpochPlan plan = job.plan();
      int n = job.readers();
      int[] idx = new int[plan.batchSize()];
      int[] groupSteps = new int[job.sequences() == null ? 0 : job.sequences().groups()];
      ReaderSteps steps = new ReaderSteps(w, job.ring().size());
      for (int j = plan.position(); j < plan.batchCount(); j++) {
        steps.batch = j;
        try {
          if (handOff.put(steps) == null) {
            return;
          }
        } catch (InterruptedException e) {
          // Only a stop interrupts a reader.
          return;
        }
        long t1 = System.nanoTime();
        int rows = plan.rows(j);
        int from = (int) ((long) rows * w / n);
        int to = (int) ((long) rows * (w + 1) / n);
        if (from < to) {
          try {
            write(plan, j, from, to, idx, groupSteps);
          } catch (Throwable t) {
            fail(t, failingSample(t, plan, j, idx, from, to));
            return;
          }
        }
        counters.addBusy(System.nanoTime() - t1);
        if (w == 0) {
          counters.addItems(1);
        }
        handOff.offer(steps);
      }
    }

    /**
     * A reader's steps for batch {@link #batch}, reused from batch to batch so a batch allocates
     * nothing: waiting for its slot to be free (the consumer released the batch it held), and
     * marking it written.
     */
    private final class ReaderSteps implements HandOff.Step<Boolean>, BooleanSupplier {
      final int reader;
      final int slots;
      int batch;

      ReaderSteps(int reader, int slots) {
        this.reader = reader;
        this.slots = slots;
      }

      @Override
      public @Nullable Boolean attempt() {
        return batch < released + slots ? Boolean.TRUE : null;
      }

      @Override
      public boolean getAsBoolean() {
        completed[reader] = batch + 1;
        return true;
      }
    }

    private void write(EpochPlan plan, int j, int from, int to, int[] idx, int[] steps) {
      BatchSlot<B> slot = job.ring().slot(j % job.ring().size());
      int samples = plan.sampleRows(j);
      plan.indices(j, idx);
      long[] sampleIndices = slot.sampleIndices();
      int copyTo = Math.min(to, samples);
      for (int r = from; r < copyTo; r++) {
        sampleIndices[r] = idx[r];
      }
      // Every reader sets the same values: no reader waits for another to set them.
      Sequences.begin(job.sequences(), slot, plan, j, idx, samples, steps);
      if (copyTo > from) {
        job.rows().write(idx, from, copyTo, slot);
      }
      slot.padConstant(Math.max(from, samples), to, job.padValues());
    }

    /**
     * The sample whose row failed: a writer writes a range of rows in one call, so on this cold path
     * the range is written again row by row until one fails (an Error is not retried; if no row fails
     * again, the range's first sample is named).
     */
    private long failingSample(Throwable t, EpochPlan plan, int j, int[] idx, int from, int to) {
      int copyTo = Math.min(to, plan.sampleRows(j));
      if (from >= copyTo) {
        return StageFailedException.NO_SAMPLE;
      }
      if (copyTo - from == 1 || t instanceof Error) {
        return idx[from];
      }
      BatchSlot<B> slot = job.ring().slot(j % job.ring().size());
      for (int r = from; r < copyTo; r++) {
        try {
          job.rows().write(idx, r, r + 1, slot);
        } catch (RuntimeException again) {
          return idx[r];
        }
      }
      return idx[from];
    }

    private void fail(Throwable t, long sample) {
      handOff.fail(StageFailedException.of(workers.stage(), sample, t));
    }
  }
}
