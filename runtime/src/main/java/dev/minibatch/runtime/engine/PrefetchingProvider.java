package dev.minibatch.runtime.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.internal.engine.GuardedIterator;
import dev.minibatch.runtime.internal.engine.IterationGuard;
import dev.minibatch.runtime.internal.pipeline.Stages;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.pipeline.Generator;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Prepares the next batch on a background thread while the consumer works on the current one
 * (double buffering), for any provider (MXNet's {@code prefetch_buffer} / {@code PrefetchingIter}).
 *
 * <p>Over a provider of this runtime (one built on its batching engine: {@code ArrayDataProvider},
 * the file and image providers) the provider's own engine writes batches ahead, on the provider's
 * reader threads if it has them, else on one reader thread of this wrapper's, into a ring of
 * four buffers; a consumer that asks for a batch not written yet writes the next free one itself
 * rather than sleep, so prefetching a fast provider never makes it slower. Over any other provider
 * the background thread pulls the wrapped provider's epoch and hands batch {@code k} over; it
 * starts batch {@code k + 1} only once the consumer has taken {@code k}, so with the providers'
 * ring of (at least) two batch buffers it never overwrites a batch still in use.
 *
 * <p>One thread per epoch ({@code minibatch-prefetch-0}, from the pipeline's thread engine),
 * started by {@link #iterator()} and stopped when the epoch ends, when the iterator or this provider
 * is closed, or when a new epoch starts; an iterator dropped mid-epoch has its thread stopped once
 * it is garbage collected. The same one-iteration-at-a-time rule as every provider: a new epoch on
 * the consumer's thread supersedes the previous one, and another thread starting one while an
 * epoch is unfinished gets an {@link IllegalStateException}. A failure on the background thread
 * reaches the consumer at its next call as a {@link StageFailedException} of stage {@code
 * prefetch} (or the wrapped provider's own stage) with the original as cause. {@link #close()}
 * closes the wrapped provider.
 *
 * <p>Over a provider of this runtime's batching engine, {@link #saveState()} and {@link
 * #restoreState} are the wrapped provider's: its engine counts a batch when the consumer takes it,
 * not when it is written ahead, so a state saved mid-epoch resumes after the last batch delivered.
 * Over any other {@link Resumable} provider (a streaming one, a generated one, another wrapper) the
 * background thread has taken a batch the consumer has not seen, so the wrapped provider's own state
 * runs ahead: the thread records that state after each batch it takes, and {@link #saveState()}
 * returns the one recorded with the last batch the consumer took. Over a provider that is not
 * {@link Resumable} both throw {@link UnsupportedOperationException}.
 *
 * @param <B> the batch type
 */
public final class PrefetchingProvider<B extends Batch> implements BatchProvider<B>, Resumable {
  private static final String STAGE = "prefetch";
  /** The one thread of {@link #writtenAhead}, in stage {@link #STAGE}. */
  private final BatchProvider<B> provider;
  private final IterationGuard guard = new IterationGuard("PrefetchingProvider");
  /** The latest epoch's states on the generic path, or null (none since the last restore). */
  private volatile @Nullable Trail trail;

  private PrefetchingProvider(BatchProvider<B> provider) {
    this.provider = provider;
  }

  /** {@code provider} with its next batch prepared in the background. */
  public static <B extends Batch> PrefetchingProvider<B> of(BatchProvider<B> provider) {
    return new PrefetchingProvider<>(provider);
  }

  @Override
  public int batchSize() {
    return provider.batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return provider.provideData();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return provider.provideLabel();
  }

  /** The wrapped provider. */
  public BatchProvider<B> provider() {
    return provider;
  }

  @Override
  public BatchIterator<B> iterator() {
    long ticket = guard.begin();
    if (provider instanceof EngineProvider<?> engine) {
      BatchIterator<B> ahead = writtenAhead(engine);
      Epoch<B> e = new Epoch<>(ahead, ahead::close, () -> PipelineStats.of(ahead), guard, ticket);
      guard.onStop(ticket, e.stopper::clean);
      return e;
    }
    // The wrapped provider's epoch is started on the background thread, which then owns it; its
    // iterator is published for stats only (snapshots are thread-safe).
    AtomicReference<@Nullable BatchIterator<B>> inner = new AtomicReference<>();
    Trail t = Trail.start(provider);
    trail = t;
    Generator<Taken<B>> pull = out -> {
      try (BatchIterator<B> source = provider.iterator()) {
        inner.set(source);
        while (source.hasNext()) {
          B b = source.next();
          out.emit(new Taken<>(b, t == null ? null : t.resumable.saveState()));
        }
        if (t != null) {
          t.end = t.resumable.saveState();
        }
      } catch (RuntimeException | Error e) {
        if (Stages.isStop(e)) {
          throw e;
        }
        throw StageFailedException.of(STAGE, StageFailedException.NO_SAMPLE, e);
      }
    };
    PipelineIterator<Taken<B>> stage = Stages.handOff(STAGE, pull);
    Iterator<B> batches = new Iterator<>() {
      @Override
      public boolean hasNext() {
        boolean more = stage.hasNext();
        if (!more && t != null) {
          t.ended = true;
        }
        return more;
      }

      @Override
      public B next() {
        Taken<B> taken = stage.next();
        if (t != null && taken.state() != null) {
          t.last = taken.state();
        }
        return taken.batch();
      }
    };
    Epoch<B> e = new Epoch<>(batches, stage::close, () -> {
      BatchIterator<B> source = inner.get();
      return (source == null ? PipelineStats.EMPTY : PipelineStats.of(source)).plus(stage.stats());
    }, guard, ticket);
    guard.onStop(ticket, e.stopper::clean);
    return e;
  }

  /**
   * The wrapped provider's state at the batches delivered to this wrapper's consumer: its engine's
   * (which counts a batch when the consumer takes it), or the one recorded with the last batch the
   * consumer took.
   *
   * @throws UnsupportedOperationException if the wrapped provider is not {@link Resumable}
   */
  @Override
  public IterationState saveState() {
    Resumable r = resumable("save");
    Trail t = trail;
    if (t == null || provider instanceof EngineProvider<?>) {
      return r.saveState();
    }
    IterationState end = t.end;
    return t.ended && end != null ? end : t.last;
  }

  /**
   * Continues the wrapped provider from {@code state} at the next iteration; the epoch in progress
   * and its thread stop first.
   *
   * @throws UnsupportedOperationException if the wrapped provider is not {@link Resumable}
   * @throws IllegalArgumentException if the state was saved with other data or settings
   */
  @Override
  public void restoreState(IterationState state) {
    Resumable r = resumable("restore");
    guard.supersede();
    trail = null;
    r.restoreState(state);
  }

  private Resumable resumable(String what) {
    if (provider instanceof Resumable r) {
      return r;
    }
    throw new UnsupportedOperationException("PrefetchingProvider cannot " + what + " an iteration state over "
        + provider.getClass().getName() + ": it is not Resumable, and the background thread takes batches ahead of the"
        + " consumer, so only the wrapped provider's own states, recorded batch by batch, can say where the consumer "
        + "stands; wrap a Resumable provider (every provider of this runtime is)");
  }

  /** A batch the background thread took, and the wrapped provider's state right after it (or null). */
  private record Taken<B>(B batch, @Nullable IterationState state) {}

  /**
   * The wrapped provider's states through one epoch on the generic path: {@link #last}, the state
   * after the last batch the consumer took (at first, the state the epoch started from), and {@link
   * #end}, the state once the thread found the epoch over.
   */
  private static final class Trail {
    final Resumable resumable;
    volatile IterationState last;
    volatile @Nullable IterationState end;
    /** The consumer found the epoch over. */
    volatile boolean ended;

    private Trail(Resumable resumable, IterationState start) {
      this.resumable = resumable;
      this.last = start;
    }

    /**
     * The trail of an epoch of {@code provider} about to start, or null where it keeps no state (not
     * {@link Resumable}, or refusing to save one: then {@link #saveState()} throws as it does).
     */
    static @Nullable Trail start(BatchProvider<?> provider) {
      if (!(provider instanceof Resumable r)) {
        return null;
      }
      try {
        return new Trail(r, r.saveState());
      } catch (UnsupportedOperationException e) {
        return null;
      }
    }
  }

  /**
   * Stops the epoch in progress and its thread, leaving the wrapped provider open (for a caller
   * that lent its provider and still owns it).
   */
  public void stop() {
    guard.supersede();
  }

  @Override
  public void close() {
    if (guard.close()) {
      provider.close();
    }
  }

  /**
   * {@code engine}'s next epoch written ahead by its own reader threads, or where it has none by one
   * reader thread of this wrapper's: the engine's ring replaces the hand-off, and a consumer that
   * would wait writes the next batch itself, so prefetching never makes a fast provider slower.
   */
  @SuppressWarnings("unchecked")
  private static <B extends Batch> BatchIterator<B> writtenAhead(EngineProvider<?> engine) {
    return (BatchIterator<B>) engine.prefetchingIterator(STAGE);
  }

  /** One epoch: the consumer's end of the batches written ahead. */
  private static final class Epoch<B extends Batch> extends GuardedIterator<B> {
    private final Iterator<B> batches;
    private final Supplier<PipelineStats> stats;
    /** Stops the epoch; references what it closes, never this epoch, so a dropped epoch is collected. */
    final Cleaner.Cleanable stopper;

    Epoch(Iterator<B> batches, Runnable stop, Supplier<PipelineStats> stats, IterationGuard guard, long ticket) {
      super(guard, ticket);
      this.batches = batches;
      this.stats = stats;
      this.stopper = ThreadCleaner.register(this, stop);
    }

    @Override
    protected boolean more() {
      return batches.hasNext();
    }

    @Override
    protected void release() {
      stopper.clean();
    }

    /** The wrapped provider's epoch, then the hand-off stage where there is one. */
    @Override
    protected PipelineStats upstream() {
      return stats.get();
    }

    @Override
    protected B produce() {
      if (!checkMore()) {
        throw new java.util.NoSuchElementException("the epoch is over");
      }
      return batches.next();
    }
  }
}
