package dev.minibatch.runtime.io;

import dev.minibatch.runtime.internal.ThreadCleaner;
import dev.minibatch.runtime.BatchBuffers;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.nd4j.HostArrays;
import dev.minibatch.runtime.pipeline.SeededContext;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One epoch filled by reader threads (Data Provider Core's Readers): the epoch's batches are cut
 * by the provider's order on the consumer's thread, and reader {@code w} of {@code n} writes rows
 * {@code [rows·w/n, rows·(w+1)/n)} of every batch straight into a slot of a ring of preallocated
 * buffers (through the process function when there is one). A slot is written again only after the
 * consumer released the batch it held. Workers block on a condition (no spinning); the first
 * failure stops them and reaches the consumer at its next call; closing (or dropping) the iterator
 * interrupts and joins them.
 */
final class ParallelEpoch implements BatchIterator<NamedBatch> {
  private static final long JOIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** The batches of one epoch, random access for the readers, delivery bookkeeping for the consumer. */
  interface Cursor {
    /** The epoch number. */
    int epoch();

    /** The first batch to deliver (after a restored position). */
    int first();

    /** The number of batches of the epoch. */
    int batchCount();

    /** Rows of batch {@code j}, padding included. */
    int rows(int j);

    /** Padding rows at the end of batch {@code j}. */
    int pad(int j);

    /** The rows of batch {@code j} that are samples (the others are padded with a constant). */
    int copied(int j);

    /** Writes the sample indices of batch {@code j} into {@code out[0, rows(j))}; thread-safe. */
    void indices(int j, int[] out);

    /** Batch {@code j} was delivered (consumer's thread). */
    void delivered(int j);

    /** Throws IllegalStateException if a newer epoch of the provider has started. */
    void check();
  }

  /** What the readers need; holds no reference to the iterator, so a dropped iterator can be cleaned. */
  record Job(String stage, Cursor cursor, List<BatchBuffers.Slot<NamedBatch>> slots, RowSource[] sources,
      double[] padValues, int batchSize, int readers, long seed, @Nullable SampleProcessor process,
      IntFunction<Sample> sampleOf, IntFunction<String> origin) {}

  private final Shared shared;
  private final Cleaner.Cleanable cleanable;
  private final Cursor cursor;
  private final boolean autoRelease;
  private final Runnable checkOpen;
  private final @Nullable Consumer<? super NamedBatch> delivery;
  private final int[] consumerIndices;
  private int next;
  private boolean ended;

  ParallelEpoch(Job job, boolean autoRelease, Runnable checkOpen, @Nullable Consumer<? super NamedBatch> delivery) {
    this.cursor = job.cursor();
    this.autoRelease = autoRelease;
    this.checkOpen = checkOpen;
    this.delivery = delivery;
    this.consumerIndices = new int[job.batchSize()];
    this.next = cursor.first();
    this.shared = new Shared(job);
    this.cleanable = ThreadCleaner.register(this, shared::stop);
    shared.start();
  }

  @Override
  public boolean hasNext() {
    checkOpen.run();
    if (ended) {
      return false;
    }
    cursor.check();
    shared.throwFailure();
    if (next >= cursor.batchCount()) {
      ended = true;
      cleanable.clean();
      return false;
    }
    return true;
  }

  @Override
  public NamedBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException("epoch " + cursor.epoch() + " is over");
    }
    int j = next;
    shared.awaitBatch(j, autoRelease);
    BatchBuffers.Slot<NamedBatch> slot = shared.job.slots().get(j % shared.job.slots().size());
    int rows = cursor.rows(j);
    cursor.indices(j, consumerIndices);
    long[] idx = slot.sampleIndices();
    for (int r = 0; r < rows; r++) {
      idx[r] = r < cursor.copied(j) ? consumerIndices[r] : -1;
    }
    NamedBatch batch = slot.publish(rows, cursor.pad(j));
    cursor.delivered(j);
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

  /**
   * A handle that stops this epoch's readers without keeping the iterator reachable, so the
   * provider can hold it while a dropped iterator is still cleaned.
   */
  Handle handle() {
    return new Handle(cleanable, shared);
  }

  /** Stops an epoch's readers; see {@link #handle()}. */
  static final class Handle {
    private final Cleaner.Cleanable cleanable;
    private final Shared shared;

    private Handle(Cleaner.Cleanable cleanable, Shared shared) {
      this.cleanable = cleanable;
      this.shared = shared;
    }

    /** Stops and joins the readers (idempotent). */
    void close() {
      cleanable.clean();
    }

    /** True if every reader thread has ended. */
    boolean stopped() {
      return shared.joined;
    }
  }

  @Override
  public void close() {
    ended = true;
    cleanable.clean();
  }

  /** The state the readers and the consumer share; guarded by {@link #lock}. */
  private static final class Shared {
    final Job job;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final int[] completed;
    final List<Thread> threads = new ArrayList<>();
    long released;
    boolean stopping;
    volatile boolean joined;
    @Nullable StageFailedException failure;

    Shared(Job job) {
      this.job = job;
      this.completed = new int[job.readers()];
      java.util.Arrays.fill(completed, job.cursor().first());
      this.released = job.cursor().first();
    }

    void start() {
      for (int w = 0; w < job.readers(); w++) {
        int worker = w;
        Thread t = new Thread(() -> run(worker), "minibatch-" + job.stage() + "-" + w);
        t.setDaemon(true);
        threads.add(t);
      }
      for (Thread t : threads) {
        t.start();
      }
    }

    void throwFailure() {
      lock.lock();
      try {
        if (failure != null) {
          throw new StageFailedException(failure.stage(), failure.sampleIndex(), failure.getCause());
        }
      } finally {
        lock.unlock();
      }
    }

    /** Releases batches before {@code j} (when automatic) and waits until every reader has written batch {@code j}. */
    void awaitBatch(int j, boolean release) {
      lock.lock();
      try {
        if (release && released < j) {
          released = j;
          changed.signalAll();
        }
        while (true) {
          if (failure != null) {
            throw new StageFailedException(failure.stage(), failure.sampleIndex(), failure.getCause());
          }
          if (stopping) {
            throw new IllegalStateException("this epoch was closed");
          }
          boolean ready = true;
          for (int c : completed) {
            ready &= c > j;
          }
          if (ready) {
            return;
          }
          changed.awaitUninterruptibly();
        }
      } finally {
        lock.unlock();
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

    /** Stops and joins the readers (from the consumer or the cleaner, never from a reader). */
    void stop() {
      lock.lock();
      try {
        stopping = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      for (Thread t : threads) {
        t.interrupt();
      }
      long deadline = System.nanoTime() + JOIN_TIMEOUT_NANOS;
      boolean interrupted = false;
      boolean all = true;
      for (Thread t : threads) {
        while (t.isAlive()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            all = false;
            System.getLogger(ParallelEpoch.class.getName()).log(System.Logger.Level.WARNING,
                "reader " + t.getName() + " did not stop within 10 s; it is a daemon thread and is left running");
            break;
          }
          try {
            TimeUnit.NANOSECONDS.timedJoin(t, left);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
      joined = all;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    private void run(int w) {
      Cursor cursor = job.cursor();
      int n = job.readers();
      int slotCount = job.slots().size();
      int[] idx = new int[job.batchSize()];
      SeededContext context = new SeededContext(job.seed(), cursor.epoch());
      for (int j = cursor.first(); j < cursor.batchCount(); j++) {
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
        int rows = cursor.rows(j);
        int from = (int) ((long) rows * w / n);
        int to = (int) ((long) rows * (w + 1) / n);
        if (from < to) {
          try {
            fill(cursor, j, from, to, idx, context);
          } catch (Throwable t) {
            fail(t);
            return;
          }
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

    private void fill(Cursor cursor, int j, int from, int to, int[] idx, SeededContext context) {
      BatchBuffers.Slot<NamedBatch> slot = job.slots().get(j % job.slots().size());
      int copied = cursor.copied(j);
      cursor.indices(j, idx);
      int copyTo = Math.min(to, copied);
      RowSource[] sources = job.sources();
      SampleProcessor process = job.process();
      if (copyTo > from) {
        if (process == null) {
          System.arraycopy(idx, from, idx, 0, copyTo - from);
          for (int i = 0; i < sources.length; i++) {
            try {
              sources[i].copy(idx, copyTo - from, slot, i, from);
            } catch (RuntimeException e) {
              throw new ReaderFailure("read", idx[0], "copying rows into the batch failed", e);
            }
          }
        } else {
          for (int r = from; r < copyTo; r++) {
            int sample = idx[r];
            context.at((long) j * job.batchSize() + r);
            Sample out;
            try {
              out = process.apply(job.sampleOf().apply(sample), context);
            } catch (RuntimeException | Error e) {
              throw new ReaderFailure("process", sample, "the process function failed", e);
            }
            write(out, sample, slot, r);
          }
        }
      }
      for (int i = 0; i < sources.length; i++) {
        int padFrom = Math.max(from, copied);
        if (padFrom < to) {
          slot.fill(i, padFrom, to, job.padValues()[i]);
        }
      }
    }

    /** Copies a processed sample into row {@code row} of the slot, checking names and shapes. */
    private void write(Sample out, int sample, BatchBuffers.Slot<NamedBatch> slot, int row) {
      List<INDArray> arrays = out.arrays();
      if (arrays.size() != job.sources().length) {
        throw new ReaderFailure("process", sample, "the processed sample does not fit the batch",
            new IllegalArgumentException("the process function returned " + arrays.size() + " arrays " + out.names()
                + "; expected " + job.sources().length));
      }
      for (int i = 0; i < arrays.size(); i++) {
        INDArray a = arrays.get(i);
        INDArray target = slot.array(i);
        long[] expected = java.util.Arrays.copyOfRange(target.shape(), 1, target.rank());
        if (!java.util.Arrays.equals(a.shape(), expected)) {
          throw new ReaderFailure("process", sample, "the processed sample does not fit the batch",
              new IllegalArgumentException("the process function returned '" + out.names().get(i) + "' of shape "
                  + java.util.Arrays.toString(a.shape()) + "; expected " + java.util.Arrays.toString(expected)));
        }
        DataType type = target.dataType();
        INDArray src = a.dataType() == type ? a : a.castTo(type);
        if (src.ordering() != 'c' || src.isView() || src.data().offset() != 0 || src.data().length() != src.length()) {
          src = src.dup('c');
        }
        int n = (int) src.length();
        ByteBuffer to = HostArrays.window(target, (long) row * n, n);
        to.put(HostArrays.window(src, 0, n));
      }
    }

    private void fail(Throwable t) {
      ReaderFailure f = t instanceof ReaderFailure ? (ReaderFailure) t
          : new ReaderFailure("read", -1, "the reader failed", t);
      lock.lock();
      try {
        if (failure == null && !stopping) {
          Throwable original = f.getCause() != null ? f.getCause() : f;
          Throwable cause = f.sample < 0 ? original : new SampleException(f.sample, job.origin().apply(f.sample), f.what, original);
          failure = new StageFailedException(job.stage() + " " + f.step, f.sample < 0 ? StageFailedException.NO_SAMPLE
              : f.sample, cause);
        }
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** A failure inside a reader, before it is given its origin. */
  private static final class ReaderFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String step;
    final int sample;
    final String what;

    ReaderFailure(String step, int sample, String what, Throwable cause) {
      super(what, cause);
      this.step = step;
      this.sample = sample;
      this.what = what;
    }
  }

  /** A reader's reusable context: position in the epoch and a generator made only when asked for. */
}
