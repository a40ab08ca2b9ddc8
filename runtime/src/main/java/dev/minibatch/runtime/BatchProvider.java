package dev.minibatch.runtime;

import dev.minibatch.DataDesc;
import java.util.List;

/**
 * A source of mini-batches (MXNet's data provider). Each call of {@link #iterator()} is one epoch,
 * so Java's for-each and Kotlin's {@code for (batch in provider)} read one epoch per loop; a
 * shuffling provider reshuffles for every epoch.
 *
 * <p>Starting a new iteration supersedes the previous one: using a superseded iterator throws
 * {@link IllegalStateException}, so nested or concurrent use of one provider fails loudly instead
 * of corrupting batches. {@link #close()} releases buffers and stops any threads the provider
 * started.
 *
 * @param <B> the batch type
 */
public interface BatchProvider<B extends Batch> extends Iterable<B>, AutoCloseable {
  /** The number of rows of a full batch. */
  int batchSize();

  /** The data arrays a batch holds, in order, batch axis first (MXNet {@code provide_data}). */
  List<DataDesc> provideData();

  /** The label arrays a batch holds, in order, batch axis first (MXNet {@code provide_label}). */
  List<DataDesc> provideLabel();

  /** Starts the next epoch. */
  @Override
  BatchIterator<B> iterator();

  /** Releases buffers and stops background work; iterating a closed provider throws. */
  @Override
  void close();
}
