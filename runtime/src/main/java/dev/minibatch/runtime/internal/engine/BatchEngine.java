package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.Buckets;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.spi.Engine;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSampleBudgetException;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.lang.ref.Cleaner;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The batching engine of every provider (arrays, files, generated providers over a List or an
 * Iterable, readers): an order plan (in order, shuffled, sharded, drawn by the provider, or read
 * from a streaming source pass by pass), the last-batch policy, padding, a ring of preallocated
 * batch buffers filled through one {@link RowWriter}, the current-iteration guard, resumable state,
 * and optionally reader threads and multicast. A provider is a front end: it describes its samples
 * (a count or a source of passes, a layout, a writer) and delegates.
 *
 * <p>A streaming source ({@link #streaming}) has the {@link StreamOrder} plan: its epochs are cut
 * as its pass is read, on the consumer's thread (so it takes no reader threads), and it resumes by
 * replaying the saved epoch's pass.
 *
 * <p>Batches are written on the consumer's thread, or with {@link Builder#readers(String)}
 * on reader threads running ahead. A batch is valid until the iterator has moved two batches on
 * (the consumer's ring has two slots; reader threads leave the batch taken before the one the
 * consumer waits for untouched), or another iteration starts;
 * {@link dev.minibatch.runtime.Batch#copy()} keeps one. Concurrency: see {@link IterationGuard}.
 *
 * @param <B> the batch type
 */
public final class BatchEngine<B extends AbstractBatch<B>> implements Engine<B> {
  private final String name;
  private final IterationGuard guard;
  private final OrderPlan order;
  private final @Nullable DrawnOrder drawn;
  private final int numSamples;
  private final BatchOutput<B> output;
  private final BatchWriter writer;
  private final int[] indexBuffer;
  private final int[] stepBuffer;
  private final @Nullable ReaderThreads readers;
  /** Chooses the readers' count and depth while epochs run, when they are autotuned. */
  private final @Nullable ReaderTuner tuner;
  private final @Nullable Consumer<? super B> delivery;
  private final @Nullable StageCounters feeding;

  private BatchEngine(Builder<B> b) {
    this.name = b.name;
    this.numSamples = b.numSamples;
    this.guard = new IterationGuard(b.name);
    EpochDraws d = b.draws;
    Sequences sequences = b.sequences;
    Buckets buckets = b.buckets;
    Sampling sampling = b.sampling;
    boolean elastic = sampling.elasticShards();
    StreamOrder<?> stream = b.stream;
    if (stream != null) {
      if (d != null || buckets != null || b.readers != null) {
        throw new IllegalArgumentException(name + ": a streaming source is read pass by pass on the consumer's thread: "
            + "it takes no draws, buckets or reader threads");
      }
      this.drawn = null;
      this.order = stream;
    } else if (d != null) {
      this.drawn = new DrawnOrder(d, elastic ? sampling.global() : sampling, b.numSamples);
      this.order = elastic ? new DealtOrder(drawn, sampling) : drawn;
    } else if (buckets != null) {
      if (elastic) {
        throw new IllegalArgumentException(name + ": elasticShards does not combine with buckets (a bucketed epoch has"
            + " no one global order of batches to deal); use shard(numParts, partIndex) without elasticShards");
      }
      if (sequences == null) {
        throw new IllegalArgumentException(name + ": buckets need a member with a VARIABLE axis to group samples by");
      }
      this.drawn = null;
      // Samples are bucketed by the length of the first length group; its batches are padded to their bucket's bound.
      int[] lengths = sequences.lengths(0);
      int[] bounds = buckets.resolve(lengths);
      this.order = new BucketOrderPlan(lengths, bounds, b.sampling);
      sequences = sequences.bucketed(bounds[bounds.length - 1]);
    } else {
      this.drawn = null;
      this.order = OrderPlan.of(b.numSamples, sampling);
    }
    IntFunction<BatchLayout> layouts = Objects.requireNonNull(b.layouts, "layout");
    this.output = new BatchOutput<>(name, layouts.apply(order.batchSize()), Objects.requireNonNull(b.batches, "batches"),
        b.sampling, sequences);
    this.stepBuffer = new int[sequences == null ? 0 : sequences.groups()];
    this.writer = new BatchWriter(Objects.requireNonNull(b.rows, "rows"), output.padValues, sequences,
        b.sampling.badSamples(), b.numSamples);
    this.indexBuffer = new int[order.batchSize()];
    this.readers = b.readers;
    ReaderThreads r = b.readers;
    Settings.Autotune tune = r == null ? null : r.autotune();
    this.tuner = r == null || tune == null ? null : new ReaderTuner(r.stage(), tune, r.threads(), r.consumerWrites());
    this.delivery = b.delivery;
    this.feeding = b.feeding;
  }

  /**
   * A builder for an engine named {@code name} over a streaming source: epoch {@code e} reads pass
   * {@code e} of {@code passes} in its order ({@link StreamOrder}), its samples written into batch
   * rows by {@code writer}. Its batch size must be set, and settings that need random access
   * (shuffle, even or elastic shards, PAD_CONTINUE, skipping or replacing bad samples) are refused.
   *
   * @throws IllegalArgumentException for such settings, naming them
   */
  public static <S, B extends AbstractBatch<B>> Builder<B> streaming(String name, Passes<? extends S> passes,
      Sampling sampling, SampleWriter<? super S> writer) {
    StreamOrder<S> order = new StreamOrder<>(name, passes, sampling);
    Builder<B> b = new Builder<>(name, -1, sampling);
    b.stream = order;
    return b.rows(writer.over(order.window()));
  }

  /**
   * A builder for an engine named {@code name} (in messages) over {@code numSamples} samples with
   * the shared {@code sampling} settings.
   *
   * @throws IllegalArgumentException if there are no samples
   */
  public static <B extends AbstractBatch<B>> Builder<B> builder(String name, int numSamples, Sampling sampling) {
    return new Builder<>(name, numSamples, sampling);
  }

  /** Rows per full batch: the configured size, or the part size when it was 0. */
  @Override
  public int batchSize() {
    return order.batchSize();
  }

  /** The batch layout for {@link #batchSize()} rows. */
  @Override
  public BatchLayout layout() {
    return output.layout;
  }

  /** The number of samples in the source (all parts), or -1 for a streaming source. */
  @Override
  public int numSamples() {
    return numSamples;
  }

  /** The samples (or draws) this provider's part visits per epoch, before padding; -1 for a streaming source. */
  @Override
  public int shardSize() {
    return order.shardSize();
  }

  /** The seed in use (the configured one, or the one drawn when the provider was built). */
  @Override
  public long seed() {
    return order.seed();
  }

  /** Starts the next epoch (or resumes the restored one); see {@link IterationGuard} for concurrency. */
  @Override
  public BatchIterator<B> iterator() {
    long ticket = guard.begin();
    if (readers != null) {
      return parallel(ticket, true, readers, true);
    }
    return new PlannedIterator(ticket, plan(ticket));
  }

  /**
   * The next epoch written ahead of the consumer: by this engine's reader threads, or, where it has
   * none, by {@code prefetch}'s (a prefetching wrapper's thread), into a ring of their slots.
   *
   * @throws UnsupportedOperationException for a streaming source, which is read on the consumer's thread
   */
  private BatchIterator<B> prefetchingIterator(ReaderThreads prefetch) {
    if (order instanceof StreamOrder) {
      // Reader threads claim batches of a planned epoch; a stream's are cut one at a time as it is read.
      throw new UnsupportedOperationException(name + ": a streaming source is read on the consumer's thread; "
          + "wrap its provider in PrefetchingProvider to read it ahead on a thread of its own");
    }
    long ticket = guard.begin();
    return parallel(ticket, true, readers != null ? readers : prefetch, true);
  }

  /** {@link #prefetchingIterator(ReaderThreads)} with one in-memory reader of {@code stage}. */
  @Override
  public BatchIterator<B> prefetchingIterator(String stage) {
    return prefetchingIterator(Objects.requireNonNull(ReaderThreads.inMemory(stage, new Settings.Workers(1, 0))));
  }

  /**
   * The next epoch's batches for several consumers (Data Provider Core's Watcher, {@code
   * engine.Multicast}): the source, how many batches may be held at once (the ring's slots minus one
   * with reader threads, else 1), and what to run when every consumer has released a batch (hand its
   * buffer back to the readers), or null.
   */
  public SharedEpoch<B> shared() {
    long ticket = guard.begin();
    ReaderThreads r = readers;
    if (r == null) {
      return new SharedEpoch<>(new PlannedIterator(ticket, plan(ticket)), 1, null);
    }
    // Not tuned: the consumers may hold all but one of the ring's batches at once, so the readers
    // must be free to fill the whole ring.
    ParallelEpoch<B> epoch = parallel(ticket, false, r, false);
    return new SharedEpoch<>(epoch, epoch.slots() - 1, b -> epoch.releaseOldest());
  }

  /**
   * What {@link #shared()} returns.
   *
   * @param source the epoch's batches
   * @param window batches held at once
   * @param onRelease run when every consumer released a batch, or null
   */
  public record SharedEpoch<B>(PipelineIterator<B> source, int window, @Nullable Consumer<B> onRelease) {}

  /** Where iteration stands; see {@link dev.minibatch.runtime.Resumable#saveState()}. */
  @Override
  public IterationState saveState() {
    guard.lockWriting();
    try {
      return order.saveState();
    } finally {
      guard.unlockWriting();
    }
  }

  /**
   * Continues from {@code state} at the next iteration. The iteration in progress ends first, even
   * if the state is then rejected.
   */
  @Override
  public void restoreState(IterationState state) {
    guard.checkOpen();
    guard.supersede();
    guard.lockWriting();
    try {
      order.restoreState(state);
    } finally {
      guard.unlockWriting();
    }
  }

  /** Forgets the samples carried over (NDArrayIter's {@code hard_reset}) and ends the iteration in progress. */
  @Override
  public void reset() {
    guard.supersede();
    guard.lockWriting();
    try {
      order.reset();
    } finally {
      guard.unlockWriting();
    }
  }

  /**
   * The sample indices of this part of epoch {@code epoch}'s draws, in order, before the last-batch
   * policy; independent of the iteration.
   *
   * @throws IllegalStateException if this engine does not draw its samples
   */
  public int[] drawnPart(int epoch) {
    DrawnOrder d = drawn;
    if (d == null) {
      throw new IllegalStateException(name + " visits its samples in source order, it does not draw them");
    }
    return d.part(epoch);
  }

  /**
   * Stops the iteration in progress and its threads, and frees the batch buffers' native memory
   * (left to the garbage collector when another thread is still iterating: it may be reading a
   * batch). Idempotent.
   */
  @Override
  public void close() {
    output.close(guard);
    guard.lockWriting();
    try {
      order.close();
    } finally {
      guard.unlockWriting();
    }
  }

  private EpochPlan plan(long ticket) {
    EpochPlan plan;
    guard.lockWriting(ticket);
    try {
      plan = order.beginEpoch();
    } finally {
      guard.unlockWriting();
    }
    guard.epoch(ticket, plan.epoch());
    return plan;
  }

  private ParallelEpoch<B> parallel(long ticket, boolean autoRelease, ReaderThreads r, boolean tuned) {
    EpochPlan plan = plan(ticket);
    Workers workers = new Workers(r.stage());
    BatchRing<B> ring;
    ReaderTuner t = tuned ? tuner : null;
    guard.lockWriting(ticket);
    try {
      ring = output.readerRing(tuner == null ? r.slots() : tunedSlots(r), workers);
    } finally {
      guard.unlockWriting();
    }
    if (t != null) {
      t.begin(ring.size(), output.slotBytes());
    }
    ParallelEpoch<B> e = new ParallelEpoch<>(new ParallelEpoch.Job<>(plan, ring, writer,
        writer.ledger(plan, order.shardSize(), ring.size()), r.threads(), r.consumerWrites(), workers,
        output.sequences, t), guard, ticket, autoRelease, delivery, feeding);
    guard.onStop(ticket, e.stopper());
    return e;
  }

  /**
   * The ring an autotuned epoch may fill: the readers' most, cut to the buffers the memory budget
   * holds.
   *
   * @throws IllegalArgumentException if the budget holds fewer than 3 buffers, the least readers
   *     need (two the consumer may hold, one written ahead)
   */
  private int tunedSlots(ReaderThreads r) {
    Settings.Autotune tune = Objects.requireNonNull(r.autotune());
    long slotBytes = Math.max(1, output.slotBytes());
    long fits = tune.memoryBytes() / slotBytes;
    if (fits < 3) {
      throw new IllegalArgumentException(name + ": autotune's memory budget of " + tune.memoryBytes()
          + " bytes holds " + fits + " batch buffers of " + slotBytes + " bytes, and reader threads need at least 3:"
          + " raise it to " + 3 * slotBytes + " bytes or more, or lower the batch size");
    }
    return (int) Math.min(r.slots(), fits);
  }

  /**
   * Writes batch {@code j} of {@code plan} into the next slot of the ring; under the write lock. The
   * batch is published at once, so the ledger needs one slot.
   */
  private B write(EpochPlan plan, int j, BadSampleLedger ledger) {
    BatchSlot<B> slot = output.ring().next();
    writer.write(plan, j, slot, 0, indexBuffer, stepBuffer, ledger);
    ledger.deliver(0);
    return slot.publish(ledger.rows(0), ledger.pad(0));
  }

  /**
   * One epoch written on the consumer's thread. A streaming epoch reads its next batch's samples
   * when asked whether there is one, and closes its source when it ends, is closed or superseded,
   * or, dropped mid-epoch, is collected (the cleaner holds the source's closer, not the iterator).
   */
  private final class PlannedIterator extends GuardedIterator<B> {
    private final EpochPlan plan;
    private final BadSampleLedger ledger;
    private final boolean streamed;
    private final Cleaner.@Nullable Cleanable sourceCloser;

    PlannedIterator(long ticket, EpochPlan plan) {
      super(guard, ticket, feeding);
      this.plan = plan;
      this.ledger = writer.ledger(plan, order.shardSize(), 1);
      this.streamed = plan.streamed();
      Runnable closer = plan.closer();
      this.sourceCloser = closer == null ? null : ThreadCleaner.register(this, closer);
      if (sourceCloser != null) {
        guard.onStop(ticket, sourceCloser::clean);
      }
    }

    @Override
    protected void release() {
      if (sourceCloser != null) {
        sourceCloser.clean();
      }
    }

    @Override
    protected java.util.List<dev.minibatch.runtime.pipeline.PipelineStats.BadSample> badSamples() {
      return ledger.delivered();
    }

    @Override
    protected boolean more() {
      if (!streamed) {
        return plan.position() < plan.batchCount();
      }
      guard.lockWriting(ticket());
      try {
        return plan.hasBatch(plan.position());
      } catch (RuntimeException | Error e) {
        failed();
        throw e;
      } finally {
        guard.unlockWriting();
      }
    }

    /**
     * Ends a streaming epoch whose source or writer failed (its pass cannot go on); a failure caused
     * by a close or a newer iteration from elsewhere reads as that.
     */
    private void failed() {
      end();
      guard.check(ticket());
    }

    @Override
    protected B produce() {
      if (!checkMore()) {
        throw new NoSuchElementException("epoch " + plan.epoch() + " of " + name + " is over");
      }
      B batch;
      guard.lockWriting(ticket());
      try {
        batch = write(plan, plan.position(), ledger);
        plan.delivered();
      } catch (BadSampleBudgetException e) {
        end();
        throw e;
      } catch (RuntimeException | Error e) {
        if (streamed) {
          failed();
        }
        throw e;
      } finally {
        guard.unlockWriting();
      }
      if (delivery != null) {
        delivery.accept(batch);
      }
      return batch;
    }
  }

  /**
   * Settings of a {@link BatchEngine}.
   *
   * @param <B> the batch type
   */
  public static final class Builder<B extends AbstractBatch<B>> {
    private final String name;
    private final int numSamples;
    private final Sampling sampling;
    private @Nullable IntFunction<BatchLayout> layouts;
    private @Nullable Function<BatchLayout, B> batches;
    private @Nullable RowWriter rows;
    private @Nullable EpochDraws draws;
    private @Nullable ReaderThreads readers;
    private @Nullable Consumer<? super B> delivery;
    private @Nullable Sequences sequences;
    private @Nullable Buckets buckets;
    private @Nullable StreamOrder<?> stream;
    private @Nullable StageCounters feeding;

    private Builder(String name, int numSamples, Sampling sampling) {
      this.name = name;
      this.numSamples = numSamples;
      this.sampling = sampling;
    }

    /** The batch layout for a given full batch size. */
    public Builder<B> layout(IntFunction<BatchLayout> layouts) {
      this.layouts = layouts;
      return this;
    }

    /** Makes the batch objects that show a ring slot's arrays. */
    public Builder<B> batches(Function<BatchLayout, B> batches) {
      this.batches = batches;
      return this;
    }

    /** Writes samples into batch rows. */
    public Builder<B> rows(RowWriter rows) {
      this.rows = rows;
      return this;
    }

    /** Epochs visit {@code draws} instead of the (shuffled) samples. */
    public Builder<B> draws(@Nullable EpochDraws draws) {
      this.draws = draws;
      return this;
    }

    /**
     * Batches are written by reader threads running ahead of the consumer, as the settings' {@link
     * Settings.Workers} say (threads named {@code minibatch-<stage>-<n>}; none for readers 0).
     */
    public Builder<B> readers(String stage) {
      this.readers = ReaderThreads.of(stage, sampling.workers());
      return this;
    }

    /**
     * As {@link #readers(String)}, for rows copied from memory: a consumer that would wait writes a
     * batch itself, and at most one reader fewer than the processors is started.
     */
    public Builder<B> copyingReaders(String stage) {
      this.readers = ReaderThreads.inMemory(stage, sampling.workers());
      return this;
    }

    /** The samples have variable-length members, measured in {@code sequences}. */
    public Builder<B> sequences(@Nullable Sequences sequences) {
      this.sequences = sequences;
      return this;
    }

    /**
     * Batches are drawn from buckets of samples of similar length ({@link BucketOrderPlan}), by the
     * first length group of {@link #sequences}; each batch is padded to its bucket's bound.
     */
    public Builder<B> buckets(@Nullable Buckets buckets) {
      this.buckets = buckets;
      return this;
    }

    /** Every batch is handed to {@code delivery} on the consumer's thread before the iterator returns it. */
    public Builder<B> delivery(@Nullable Consumer<? super B> delivery) {
      this.delivery = delivery;
      return this;
    }

    /**
     * The rows are made from what a threaded stage outliving the epochs provides (a shard cache's
     * read-ahead, whose counters are {@code feeding}): every epoch's stats list it first, with what
     * it counted during that epoch (files and bytes read between two epochs count in the next:
     * {@link StageCounters#window()}).
     */
    public Builder<B> feeding(@Nullable StageCounters feeding) {
      this.feeding = feeding;
      return this;
    }

    /**
     * The engine, with its batch buffers allocated.
     *
     * @throws IllegalArgumentException for no samples, an empty part, padding for an unknown name,
     *     or settings the order plan rejects
     */
    public BatchEngine<B> build() {
      return new BatchEngine<>(this);
    }
  }
}
