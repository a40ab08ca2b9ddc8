package dev.minibatch.runtime.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.internal.engine.GuardedIterator;
import dev.minibatch.runtime.internal.engine.IterationGuard;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import java.util.ArrayList;
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
 * <p>An epoch's {@linkplain PipelineStats#badSamples() bad samples} are those of the batches it
 * delivered, as the wrapped provider numbers them (its epochs, its sample indices).
 *
 * <p>Resumable when the wrapped provider is: {@link #saveState()} composes this provider's epoch and
 * position with the wrapped provider's state (its one {@linkplain IterationState#parts() part}), so
 * a restore continues both where they stood, the wrapped iteration mid-epoch where it was. Over a
 * provider that is not {@link Resumable}, both throw {@link UnsupportedOperationException}.
 *
 * @param <B> the batch type
 */
public final class ResizedProvider<B extends Batch> implements BatchProvider<B>, Resumable {
  private final BatchProvider<B> provider;
  private final int batches;
  private final boolean restart;
  private final IterationGuard guard = new IterationGuard("ResizedProvider");
  /** The wrapped provider's iteration in progress, carried across epochs; guarded by {@code this}. */
  private @Nullable BatchIterator<B> inner;

  // Where iteration stands; guarded by this.
  /** The epoch the next {@link #iterator()} starts, and the batches of it already delivered (a restore). */
  private int nextEpoch;
  private int resumePosition;
  /** The latest epoch, or null before the first and after a restore. */
  private @Nullable Epoch current;
  /** The wrapped provider was restored and its first iteration since is not yet open. */
  private boolean innerRestored;
  /**
   * restartEachEpoch, restored at an epoch's start while the wrapped epoch stood mid-way: that
   * wrapped epoch is abandoned first, as the saved iteration would have restarted it.
   */
  private boolean abandonRestored;

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
    synchronized (this) {
      if (restart && resumePosition == 0) {
        closeInner();
      }
      Epoch e = new Epoch(ticket, nextEpoch, resumePosition);
      current = e;
      nextEpoch++;
      resumePosition = 0;
      return e;
    }
  }

  /**
   * This provider's epoch and the batches delivered of it (or, once it delivered all, the next
   * epoch at 0), with the wrapped provider's state as its one part.
   *
   * @throws UnsupportedOperationException if the wrapped provider is not {@link Resumable}
   */
  @Override
  public synchronized IterationState saveState() {
    Resumable r = resumable("save");
    Epoch c = current;
    boolean going = c != null && c.delivered < batches;
    int epoch = going ? c.epoch : nextEpoch;
    int position = going ? c.delivered : resumePosition;
    return new IterationState(0, epoch, position, new int[0], fingerprint(), List.of(r.saveState()));
  }

  /**
   * Continues from {@code state} at the next iteration: this provider's epoch and position, and the
   * wrapped provider restored from the state's part. The iteration in progress ends first.
   *
   * @throws UnsupportedOperationException if the wrapped provider is not {@link Resumable}
   * @throws IllegalArgumentException if the state was saved by another kind of provider or with other
   *     settings, its position lies beyond an epoch, or the wrapped provider refuses its part
   */
  @Override
  public void restoreState(IterationState state) {
    Resumable r = resumable("restore");
    guard.checkOpen();
    guard.supersede();
    String fingerprint = fingerprint();
    if (!state.settings().equals(fingerprint)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other settings, or by another "
          + "kind of provider:\n  saved:    " + state.settings() + "\n  this one: " + fingerprint);
    }
    if (state.position() > batches) {
      throw new IllegalArgumentException("iteration state: position " + state.position() + " is out of range; epoch "
          + state.epoch() + " has " + batches + " batches, so the position must be in [0, " + batches + "]");
    }
    if (state.parts().size() != 1) {
      throw new IllegalArgumentException("iteration state: a ResizedProvider's state holds the wrapped provider's "
          + "state as its one part, found " + state.parts().size() + " parts");
    }
    IterationState part = state.parts().get(0);
    synchronized (this) {
      closeInner();
      r.restoreState(part);
      nextEpoch = state.epoch();
      resumePosition = state.position();
      current = null;
      innerRestored = true;
      abandonRestored = restart && state.position() == 0 && part.position() > 0;
    }
  }

  private String fingerprint() {
    return "ResizedProvider(batchesPerEpoch=" + batches + ",restartEachEpoch=" + restart + ")";
  }

  private Resumable resumable(String what) {
    if (provider instanceof Resumable r) {
      return r;
    }
    throw new UnsupportedOperationException("ResizedProvider cannot " + what + " an iteration state: the wrapped "
        + provider.getClass().getName() + " is not Resumable; wrap a provider that is (every provider of this runtime)");
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

  /**
   * The next batch of the wrapped provider, starting its next epoch when one ends; counted as
   * delivered in {@code epoch}.
   */
  private synchronized B pull(Epoch epoch) {
    BatchIterator<B> it = inner;
    if (it == null || !it.hasNext()) {
      if (it != null) {
        epoch.carry(badSamplesOf(it));
        it.close();
      }
      inner = null;
      it = provider.iterator();
      boolean resumed = innerRestored;
      innerRestored = false;
      if (abandonRestored) {
        abandonRestored = false;
        it.close();
        it = provider.iterator();
      } else if (resumed && !it.hasNext()) {
        // The restored wrapped epoch stood at its end: its next epoch follows.
        it.close();
        it = provider.iterator();
      }
      if (!it.hasNext()) {
        it.close();
        throw new IllegalStateException("ResizedProvider: the wrapped provider " + provider.getClass().getSimpleName()
            + " delivered no batch in a whole epoch, so no epoch of " + batches + " batches can be made");
      }
      inner = it;
    }
    B b = it.next();
    epoch.delivered++;
    return b;
  }

  /** The wrapped epoch's bad samples so far (a stats snapshot: called at epoch boundaries, not per batch). */
  private static List<BadSample> badSamplesOf(@Nullable BatchIterator<?> it) {
    return it == null ? List.of() : PipelineStats.of(it).badSamples();
  }

  private synchronized PipelineStats innerStats() {
    BatchIterator<B> it = inner;
    return it == null ? PipelineStats.EMPTY : PipelineStats.of(it);
  }

  /** One epoch of {@link #batches} batches. */
  private final class Epoch extends GuardedIterator<B> {
    final int epoch;
    /** Batches delivered, counting those delivered before a restore; guarded by the provider. */
    int delivered;

    /** Bad samples of wrapped epochs that ended during this one, from their batches this one delivered. */
    private final List<BadSample> ended = new ArrayList<>();
    /** How many of the current wrapped epoch's bad samples came in batches of earlier epochs. */
    private int reportedBefore;

    Epoch(long ticket, int epoch, int delivered) {
      super(guard, ticket);
      this.epoch = epoch;
      this.delivered = delivered;
      synchronized (ResizedProvider.this) {
        reportedBefore = badSamplesOf(inner).size();
      }
    }

    /** A wrapped epoch ended with {@code bad}: those from this epoch's batches are kept. */
    void carry(List<BadSample> bad) {
      ended.addAll(bad.subList(Math.min(reportedBefore, bad.size()), bad.size()));
      reportedBefore = 0;
    }

    /**
     * The bad samples of the batches this epoch delivered, as the wrapped provider reported them (its
     * epoch numbers and sample indices), in delivery order.
     */
    @Override
    protected List<BadSample> badSamples() {
      synchronized (ResizedProvider.this) {
        List<BadSample> now = badSamplesOf(inner);
        List<BadSample> all = new ArrayList<>(ended);
        all.addAll(now.subList(Math.min(reportedBefore, now.size()), now.size()));
        return all;
      }
    }

    @Override
    protected boolean more() {
      synchronized (ResizedProvider.this) {
        return delivered < batches;
      }
    }

    @Override
    protected B produce() {
      if (!checkMore()) {
        throw new NoSuchElementException("the epoch of " + batches + " batches is over");
      }
      return pull(this);
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
      this.batches = Check.atLeast("batchesPerEpoch", batches, 1);
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
