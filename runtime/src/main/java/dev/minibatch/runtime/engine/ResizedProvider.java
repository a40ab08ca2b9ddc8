package dev.minibatch.runtime.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.internal.engine.GuardedIterator;
import dev.minibatch.runtime.internal.engine.IterationGuard;
import dev.minibatch.runtime.pipeline.PipelineStats;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A fixed number of batches per epoch from any provider (MXNet's {@code ResizeIter}): each epoch
 * delivers exactly {@link #batchesPerEpoch()} batches, taking them from the wrapped provider's
 * epochs one after the other — when the wrapped epoch ends, its next epoch starts (reshuffled, if
 * it shuffles) and delivery goes on. By default the position carries over from one epoch to the
 * next, so over several epochs every batch of the wrapped provider is seen in turn (an epoch of 3
 * over a provider of 4 batches {@code a b c d}: {@code a b c}, {@code d a' b'}, ...); with {@link
 * Builder#restartEachEpoch(boolean) restartEachEpoch(true)} every epoch starts a fresh wrapped epoch
 * (MXNet's default, {@code reset_internal=True}: {@code a b c}, {@code a' b' c'}).
 *
 * <p>Batches are the wrapped provider's, valid as long as it says. Because the wrapped iteration
 * continues across epochs, run the epochs on one thread (a wrapped engine provider refuses an
 * iteration from another thread while its own is unfinished). The one-iteration-at-a-time rule holds
 * for this provider as for every other. {@link #close()} ends the wrapped iteration and closes the
 * wrapped provider.
 *
 * @param <B> the batch type
 */
public final class ResizedProvider<B extends Batch> implements BatchProvider<B> {
  private final BatchProvider<B> provider;
  private final int batches;
  private final boolean restart;
  private final IterationGuard guard = new IterationGuard("ResizedProvider");
  /** The wrapped provider's iteration in progress, carried across epochs; guarded by {@code this}. */
  private @Nullable BatchIterator<B> inner;

  private ResizedProvider(Builder<B> b) {
    this.provider = b.provider;
    this.batches = b.batches;
    this.restart = b.restart;
  }

  /** {@code provider} cut or extended to {@code batchesPerEpoch} batches per epoch, continuing across epochs. */
  public static <B extends Batch> ResizedProvider<B> of(BatchProvider<B> provider, int batchesPerEpoch) {
    return builder(provider).batchesPerEpoch(batchesPerEpoch).build();
  }

  /** A builder over {@code provider}. */
  public static <B extends Batch> Builder<B> builder(BatchProvider<B> provider) {
    return new Builder<>(provider);
  }

  /** A builder over {@code provider}, configured by {@code settings}. */
  public static <B extends Batch> ResizedProvider<B> create(BatchProvider<B> provider, Consumer<Builder<B>> settings) {
    Builder<B> b = builder(provider);
    settings.accept(b);
    return b.build();
  }

  /** The batches each epoch delivers. */
  public int batchesPerEpoch() {
    return batches;
  }

  /** The wrapped provider. */
  public BatchProvider<B> provider() {
    return provider;
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

  @Override
  public BatchIterator<B> iterator() {
    long ticket = guard.begin();
    if (restart) {
      closeInner();
    }
    return new Epoch(ticket);
  }

  @Override
  public void close() {
    if (guard.close()) {
      try {
        closeInner();
      } finally {
        provider.close();
      }
    }
  }

  private synchronized void closeInner() {
    BatchIterator<B> it = inner;
    inner = null;
    if (it != null) {
      it.close();
    }
  }

  /** The next batch of the wrapped provider, starting its next epoch when one ends. */
  private synchronized B pull() {
    BatchIterator<B> it = inner;
    if (it == null || !it.hasNext()) {
      if (it != null) {
        it.close();
      }
      inner = null;
      it = provider.iterator();
      if (!it.hasNext()) {
        it.close();
        throw new IllegalStateException("ResizedProvider: the wrapped provider " + provider.getClass().getSimpleName()
            + " delivered no batch in a whole epoch, so no epoch of " + batches + " batches can be made");
      }
      inner = it;
    }
    return it.next();
  }

  private synchronized PipelineStats innerStats() {
    BatchIterator<B> it = inner;
    return it == null ? PipelineStats.EMPTY : PipelineStats.of(it);
  }

  /** One epoch of {@link #batches} batches. */
  private final class Epoch extends GuardedIterator<B> {
    private int delivered;

    Epoch(long ticket) {
      super(guard, ticket);
    }

    @Override
    protected boolean more() {
      return delivered < batches;
    }

    @Override
    protected B produce() {
      if (!checkMore()) {
        throw new NoSuchElementException("the epoch of " + batches + " batches is over");
      }
      B b = pull();
      delivered++;
      return b;
    }

    @Override
    protected PipelineStats upstream() {
      return innerStats();
    }
  }

  /**
   * Settings of a {@link ResizedProvider}.
   *
   * @param <B> the batch type
   */
  public static final class Builder<B extends Batch> {
    private final BatchProvider<B> provider;
    private int batches;
    private boolean restart;

    private Builder(BatchProvider<B> provider) {
      this.provider = provider;
    }

    /** The batches each epoch delivers (MXNet's {@code size}); required, at least 1. */
    public Builder<B> batchesPerEpoch(int batches) {
      if (batches < 1) {
        throw new IllegalArgumentException("batchesPerEpoch must be at least 1, got " + batches);
      }
      this.batches = batches;
      return this;
    }

    /**
     * Whether every epoch starts a fresh epoch of the wrapped provider (MXNet's {@code
     * reset_internal}, true there by default); default false: continue where the last epoch
     * stopped.
     */
    public Builder<B> restartEachEpoch(boolean restart) {
      this.restart = restart;
      return this;
    }

    /**
     * The provider.
     *
     * @throws IllegalArgumentException if {@link #batchesPerEpoch(int)} was not set
     */
    public ResizedProvider<B> build() {
      if (batches < 1) {
        throw new IllegalArgumentException("ResizedProvider: set batchesPerEpoch(n)");
      }
      return new ResizedProvider<>(this);
    }
  }
}
