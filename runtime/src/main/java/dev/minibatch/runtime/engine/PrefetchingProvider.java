package dev.minibatch.runtime.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.internal.engine.GuardedIterator;
import dev.minibatch.runtime.internal.engine.IterationGuard;
import dev.minibatch.runtime.internal.pipeline.Stages;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.pipeline.Generator;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Prepares the next batch on a background thread while the consumer works on the current one
 * (double buffering), for any provider (MXNet's {@code prefetch_buffer} / {@code PrefetchingIter}).
 * The background thread hands batch {@code k} over and starts batch {@code k + 1} only once the
 * consumer has taken {@code k}, so with the providers' ring of (at least) two batch buffers it never
 * overwrites a batch still in use.
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
 * @param <B> the batch type
 */
public final class PrefetchingProvider<B extends Batch> implements BatchProvider<B> {
  private static final String STAGE = "prefetch";

  private final BatchProvider<B> provider;
  private final IterationGuard guard = new IterationGuard("PrefetchingProvider");

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
    // The wrapped provider's epoch is started on the background thread, which then owns it; its
    // iterator is published for stats only (snapshots are thread-safe).
    AtomicReference<@Nullable BatchIterator<B>> inner = new AtomicReference<>();
    Generator<B> pull = out -> {
      try (BatchIterator<B> source = provider.iterator()) {
        inner.set(source);
        while (source.hasNext()) {
          out.emit(source.next());
        }
      } catch (RuntimeException | Error e) {
        if (Stages.isStop(e)) {
          throw e;
        }
        throw StageFailedException.of(STAGE, StageFailedException.NO_SAMPLE, e);
      }
    };
    Epoch<B> e = new Epoch<>(Stages.handOff(STAGE, pull), inner, guard, ticket);
    guard.onStop(ticket, e.stopper::clean);
    return e;
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

  /** One epoch: the consumer's end of the hand-off stage. */
  private static final class Epoch<B extends Batch> extends GuardedIterator<B> {
    private final PipelineIterator<B> stage;
    private final AtomicReference<@Nullable BatchIterator<B>> inner;
    /** Stops the stage; references the stage, never this epoch, so a dropped epoch is collected. */
    final Cleaner.Cleanable stopper;

    Epoch(PipelineIterator<B> stage, AtomicReference<@Nullable BatchIterator<B>> inner, IterationGuard guard,
        long ticket) {
      super(guard, ticket);
      this.stage = stage;
      this.inner = inner;
      this.stopper = ThreadCleaner.register(this, stage::close);
    }

    @Override
    protected boolean more() {
      return stage.hasNext();
    }

    @Override
    protected void release() {
      stopper.clean();
    }

    /** The wrapped provider's epoch (on the background thread), then the hand-off stage. */
    @Override
    protected PipelineStats upstream() {
      BatchIterator<B> source = inner.get();
      return (source == null ? PipelineStats.EMPTY : PipelineStats.of(source)).plus(stage.stats());
    }

    @Override
    protected B produce() {
      if (!checkMore()) {
        throw new java.util.NoSuchElementException("the epoch is over");
      }
      return stage.next();
    }
  }
}
