package dev.minibatch.runtime.spi;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Resumable;
import java.util.List;

/**
 * The base of a random-access provider that runs on the batching {@link Engine}: every {@link
 * BatchProvider} and {@link Resumable} method delegates to {@link #engine()}, so a provider adds
 * only its builder and what is its own.
 *
 * @param <B> the batch type
 */
public abstract class EngineProvider<B extends AbstractBatch<B>> implements BatchProvider<B>, Resumable {
  /** For subclasses. */
  protected EngineProvider() {}

  /** The engine this provider runs on. */
  protected abstract Engine<B> engine();

  @Override
  public int batchSize() {
    return engine().batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return engine().layout().data();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return engine().layout().label();
  }

  /** The names and shapes of the batch arrays. */
  public BatchLayout layout() {
    return engine().layout();
  }

  /** The number of samples in the source (all shards). */
  public int numSamples() {
    return engine().numSamples();
  }

  /** The samples (or draws) this provider's shard visits per epoch, before padding. */
  public int shardSize() {
    return engine().shardSize();
  }

  /** The shuffle seed in use (the configured one, or the one drawn when the provider was built). */
  public long seed() {
    return engine().seed();
  }

  @Override
  public BatchIterator<B> iterator() {
    return engine().iterator();
  }

  /**
   * The next epoch written ahead of the consumer by this provider's reader threads or, where it has
   * none, by one thread of the stage {@code stage}: what a prefetching wrapper runs instead of a
   * thread of its own.
   */
  public BatchIterator<B> prefetchingIterator(String stage) {
    return engine().prefetchingIterator(stage);
  }

  @Override
  public IterationState saveState() {
    return engine().saveState();
  }

  @Override
  public void restoreState(IterationState state) {
    engine().restoreState(state);
  }

  /**
   * Forgets samples carried over by {@link dev.minibatch.LastBatch#ROLL_OVER} (NDArrayIter's {@code
   * hard_reset}) and ends the iteration in progress.
   */
  public void reset() {
    engine().reset();
  }

  @Override
  public void close() {
    engine().close();
  }
}
