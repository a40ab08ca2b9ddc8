package dev.minibatch.runtime.spi;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.IterationState;

/**
 * The batching engine as a provider sees it: one provider's samples cut into batches epoch by
 * epoch, with their order, sharding, padding, reader threads and resume. An {@link EngineProvider}
 * delegates every {@code BatchProvider} and {@code Resumable} method to one.
 *
 * @param <B> the batch type
 */
public interface Engine<B extends AbstractBatch<B>> extends AutoCloseable {
  /** Rows of a full batch. */
  int batchSize();

  /** The names, shapes and types of the batch arrays. */
  BatchLayout layout();

  /** The samples of the source, all parts together. */
  int numSamples();

  /** The samples (or draws) this provider's part visits per epoch, before padding. */
  int shardSize();

  /** The seed of every draw: the user's, or the one drawn when the provider was built. */
  long seed();

  /** The next epoch, written on the provider's reader threads if it has some. */
  BatchIterator<B> iterator();

  /**
   * The next epoch written ahead of the consumer by the provider's reader threads or, where it has
   * none, by one thread of the stage {@code stage}: what a prefetching wrapper runs instead of a
   * thread of its own.
   */
  BatchIterator<B> prefetchingIterator(String stage);

  /** Where the iteration stands: the epoch and the batches delivered of it. */
  IterationState saveState();

  /** Continues from {@code state} (see {@link dev.minibatch.runtime.IterationState}). */
  void restoreState(IterationState state);

  /** Forgets samples carried over to the next epoch and ends the iteration in progress. */
  void reset();

  /** Stops the reader threads and ends the iteration in progress. */
  @Override
  void close();
}
