package dev.minibatch.runtime.engine;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.StageCounters;
import dev.minibatch.runtime.pipeline.StageFailedException;
import dev.minibatch.runtime.pipeline.ThreadCleaner;
import dev.minibatch.runtime.pipeline.Workers;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One epoch filled by reader threads (Data Provider Core's Readers): reader {@code w} of {@code n}
 * writes rows {@code [rows·w/n, rows·(w+1)/n)} of every batch straight into a slot of a ring of
 * preallocated buffers, through the provider's {@link RowWriter}. A slot is written again only
 * after the consumer released the batch it held. Readers block on a condition (no spinning); the
 * first failure stops them and reaches the consumer at its next call; closing (or dropping) the
 * iterator interrupts and joins them through {@link Workers}.
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
  boolean more() {
    shared.throwFailure();
    return next < plan.batchCount();
  }

  @Override
  void release() {
    cleanable.clean();
  }

  @Override
  PipelineStats upstream() {
    return new PipelineStats(java.util.List.of(shared.counters.snapshot()));
  }

  @Override
  B produce() {
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

  /** The state the readers and the consumer share; guarded by {@link #lock}. */
  private static final class Shared<B extends AbstractBatch<B>> {
    final Job<B> job;
    final Workers workers;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final int[] completed;
    /** The readers' stage: busy writing rows, blocked waiting for a free slot; the consumer's waits. */
    final StageCounters counters;
    /** Batches the consumer has taken (guarded by lock). */
    int taken;
    long released;
    boolean stopping;
    @Nullable StageFailedException failure;

    Shared(Job<B> job) {
      this.job = job;
      this.workers = job.workers();
      this.completed = new int[job.readers()];
      Arrays.fill(completed, job.plan().position());
      this.released = job.plan().position();
      this.taken = job.plan().position();
      this.counters = new StageCounters(workers.stage(), job.readers(), job.ring().size(), this::depth);
    }

    /** Batches written by every reader and not yet taken by the consumer. */
    private int depth() {
      lock.lock();
      try {
        int ready = Integer.MAX_VALUE;
        for (int c : completed) {
          ready = Math.min(ready, c);
        }
        return Math.max(0, ready - taken);
      } finally {
        lock.unlock();
      }
    }

    void start() {
      for (int w = 0; w < job.readers(); w++) {
        int worker = w;
        workers.start(() -> run(worker));
      }
    }

    void throwFailure() {
      lock.lock();
      try {
        if (failure != null) {
          throw failure.rethrownHere();
        }
      } finally {
        lock.unlock();
      }
    }

    /** Releases batches before {@code j} (when automatic) and waits until every reader has written batch {@code j}. */
    void awaitBatch(int j, boolean release) {
      long t0 = System.nanoTime();
      lock.lock();
      try {
        if (release && released < j) {
          released = j;
          changed.signalAll();
        }
        while (true) {
          if (failure != null) {
            throw failure.rethrownHere();
          }
          if (stopping) {
            throw new IllegalStateException("this epoch was closed");
          }
          boolean ready = true;
          for (int c : completed) {
            ready &= c > j;
          }
          if (ready) {
            taken = j + 1;
            return;
          }
          changed.awaitUninterruptibly();
        }
      } finally {
        lock.unlock();
        counters.addConsumerWait(System.nanoTime() - t0);
      }
    }

    void releaseOne() {
      lock.lock();
      try {
        released++;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }

    /** Stops and joins the readers (from the consumer, the guard or the cleaner, never from a reader). */
    void stop() {
      lock.lock();
      try {
        stopping = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      counters.ended();
      workers.stop();
    }

    private void run(int w) {
      EpochPlan plan = job.plan();
      int n = job.readers();
      int slotCount = job.ring().size();
      int[] idx = new int[plan.batchSize()];
      int[] steps = new int[job.sequences() == null ? 0 : job.sequences().groups()];
      for (int j = plan.position(); j < plan.batchCount(); j++) {
        long t0 = System.nanoTime();
        lock.lock();
        try {
          while (!stopping && failure == null && j >= released + slotCount) {
            changed.await();
          }
          if (stopping || failure != null) {
            return;
          }
        } catch (InterruptedException e) {
          return;
        } finally {
          lock.unlock();
        }
        long t1 = System.nanoTime();
        counters.addBlockedOutput(t1 - t0);
        int rows = plan.rows(j);
        int from = (int) ((long) rows * w / n);
        int to = (int) ((long) rows * (w + 1) / n);
        if (from < to) {
          try {
            write(plan, j, from, to, idx, steps);
          } catch (Throwable t) {
            fail(t, failingSample(t, plan, j, idx, from, to));
            return;
          }
        }
        counters.addBusy(System.nanoTime() - t1);
        if (w == 0) {
          counters.addItems(1);
        }
        lock.lock();
        try {
          completed[w] = j + 1;
          changed.signalAll();
        } finally {
          lock.unlock();
        }
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
      StageFailedException f = StageFailedException.of(workers.stage(), sample, t);
      lock.lock();
      try {
        if (failure == null && !stopping) {
          failure = f;
        }
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
