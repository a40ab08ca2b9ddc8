package dev.minibatch.runtime.pipeline;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import java.util.List;
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
 * is closed, or when a new epoch starts; a dropped iterator's thread is stopped once it is garbage
 * collected. A failure on the background thread reaches the consumer at its next call as a {@link
 * StageFailedException} of stage {@code prefetch} (or the wrapped provider's own stage) with the
 * original as cause. {@link #close()} closes the wrapped provider.
 *
 * @param <B> the batch type
 */
public final class PrefetchingProvider<B extends Batch> implements BatchProvider<B> {
  private static final String STAGE = "prefetch";

  private final BatchProvider<B> provider;
  private @Nullable Epoch<B> current;
  private boolean closed;

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
  public synchronized BatchIterator<B> iterator() {
    if (closed) {
      throw new IllegalStateException("this PrefetchingProvider is closed");
    }
    stop();
    // The wrapped provider's epoch is started on the background thread, which then owns it.
    Generator<B> pull = out -> {
      try (BatchIterator<B> source = provider.iterator()) {
        while (source.hasNext()) {
          out.emit(source.next());
        }
      } catch (Channel.Stopped stopped) {
        throw stopped;
      } catch (RuntimeException | Error e) {
        throw StageFailedException.of(STAGE, StageFailedException.NO_SAMPLE, e);
      }
    };
    Epoch<B> e = new Epoch<>(ProducerStage.handOff(STAGE, pull, () -> {}, () -> PipelineStats.EMPTY));
    current = e;
    return e;
  }

  /**
   * Stops the epoch in progress and its thread, leaving the wrapped provider open (for a caller
   * that lent its provider and still owns it).
   */
  public synchronized void stop() {
    Epoch<B> c = current;
    if (c != null) {
      c.superseded = true;
      c.close();
      current = null;
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      stop();
      provider.close();
    }
  }

  /** One epoch: the consumer's end of the hand-off stage. */
  private static final class Epoch<B extends Batch> implements BatchIterator<B> {
    private final PipelineIterator<B> stage;
    volatile boolean superseded;

    Epoch(PipelineIterator<B> stage) {
      this.stage = stage;
    }

    @Override
    public boolean hasNext() {
      if (superseded) {
        throw new IllegalStateException("this epoch of the PrefetchingProvider was closed or superseded by a newer "
            + "iteration of the provider");
      }
      return stage.hasNext();
    }

    @Override
    public B next() {
      hasNext();
      return stage.next();
    }

    @Override
    public void close() {
      stage.close();
    }
  }
}
