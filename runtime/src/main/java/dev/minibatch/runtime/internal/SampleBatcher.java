package dev.minibatch.runtime.internal;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.internal.engine.Passes;
import dev.minibatch.runtime.internal.engine.SampleWriter;
import dev.minibatch.runtime.internal.engine.SequenceFields;
import dev.minibatch.runtime.internal.engine.Sequences;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.reader.Reader;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * NOT API: what a generated provider delegates to: the runtime's {@link BatchEngine}, exactly as
 * {@code ArrayDataProvider} runs on it. A random-access source (a {@link List}) gets every
 * last-batch policy, shuffle, shards, resumable state by seeking; a streaming source (any {@link
 * Iterable}) is read one pass per epoch and resumes by replay (a {@link Reader} source reads its
 * pass {@code e} in epoch {@code e}, any other Iterable a new iterator). Either way samples reach
 * the batch buffers through the generated {@link Collator}, one call per batch.
 *
 * @param <S> the sample type
 * @param <B> the generated batch type
 */
public final class SampleBatcher<S, B extends AbstractBatch<B>> implements AutoCloseable {
  private final String providerName;
  private final BatchEngine<B> engine;
  // What a source other than the sample list holds open (a shard set's files), closed after the engine.
  private @Nullable AutoCloseable resources;

  private SampleBatcher(String providerName, BatchEngine<B> engine) {
    this.providerName = providerName;
    this.engine = engine;
  }

  /**
   * A batcher over an engine built elsewhere (by a module above the runtime, such as the shard
   * sets'), closing {@code resources} after the engine.
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> of(String providerName, BatchEngine<B> engine,
      AutoCloseable resources) {
    SampleBatcher<S, B> b = new SampleBatcher<>(providerName, engine);
    b.resources = resources;
    return b;
  }

  /** A batcher over a random-access source, written by the reader threads {@code sampling} sets. */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> of(String providerName, List<? extends S> samples,
      Sampling sampling, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches, Collator<S> collator) {
    BatchEngine<B> engine = BatchEngine.<B>builder(providerName, samples.size(), sampling)
        .layout(layouts).batches(batches).rows(writer(collator).over(samples)).copyingReaders("sample-reader").build();
    return new SampleBatcher<>(providerName, engine);
  }

  /**
   * A batcher over a random-access source whose samples have variable-length members: their lengths
   * are read once, now.
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> of(String providerName, List<? extends S> samples,
      Sampling sampling, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches, Collator<S> collator,
      SequenceFields<S> fields, SequenceOptions options) {
    Sequences sequences = Sequences.measure(samples, fields, options.fixedLength());
    BatchEngine<B> engine = BatchEngine.<B>builder(providerName, samples.size(), sampling)
        .layout(layouts).batches(batches).rows(writer(collator).over(samples)).copyingReaders("sample-reader")
        .sequences(sequences).buckets(options.buckets()).build();
    return new SampleBatcher<>(providerName, engine);
  }

  /**
   * A batcher over a streaming source whose samples have variable-length members: each needs a
   * maxLength, and every batch is padded to it.
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> streaming(String providerName,
      Iterable<? extends S> samples, Sampling sampling, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, Collator<S> collator, SequenceFields<S> fields,
      SequenceOptions options) {
    if (options.buckets() != null) {
      throw new IllegalArgumentException(providerName + ": buckets need a List source (every sample's length is read "
          + "before the epoch is cut); pass a List to samples(list)");
    }
    return new SampleBatcher<>(providerName, BatchEngine.<S, B>streaming(providerName, passes(samples), sampling,
        writer(collator)).layout(layouts).batches(batches).sequences(Sequences.streaming(providerName, fields)).build());
  }

  /** A batcher over a streaming source: every epoch iterates {@code samples} once. */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> streaming(String providerName,
      Iterable<? extends S> samples, Sampling sampling, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, Collator<S> collator) {
    return new SampleBatcher<>(providerName, BatchEngine.<S, B>streaming(providerName, passes(samples), sampling,
        writer(collator)).layout(layouts).batches(batches).build());
  }

  /**
   * The passes of a streaming source: a {@link Reader}'s pass {@code e} for epoch {@code e} (so a
   * shuffled reader replays an epoch in its order), any other Iterable's next iterator.
   */
  @SuppressWarnings("unchecked") // a Reader that is an Iterable<? extends S> reads S
  private static <S> Passes<S> passes(Iterable<? extends S> samples) {
    if (samples instanceof Reader<?> reader) {
      Reader<? extends S> r = (Reader<? extends S>) reader;
      return r::iterator;
    }
    return epoch -> samples.iterator();
  }

  /** The generated collate as the engine's sample writer. */
  static <S> SampleWriter<S> writer(Collator<S> collator) {
    return (samples, positions, from, to, slot) ->
        collator.collate(samples, positions, slot.sampleIndices(), from, to, CollateTarget.of(slot));
  }

  /** Rows per full batch. */
  public int batchSize() {
    return engine.batchSize();
  }

  /** The batch layout. */
  public BatchLayout layout() {
    return engine.layout();
  }

  /** The number of samples, or -1 for a streaming source. */
  public int numSamples() {
    return engine.numSamples();
  }

  /** The shuffle seed in use (a streaming source's is the settings' seed: it is never shuffled). */
  public long seed() {
    return engine.seed();
  }

  /** Starts the next epoch. */
  public BatchIterator<B> iterator() {
    return engine.iterator();
  }

  /** The iteration state. */
  public IterationState saveState() {
    return engine.saveState();
  }

  /**
   * Restores an iteration state; a streaming source is read again now up to the state's position.
   *
   * @throws IllegalArgumentException if the state belongs to other data or settings
   * @throws IllegalStateException if a streaming source cannot be replayed
   */
  public void restoreState(IterationState state) {
    engine.restoreState(state);
  }

  /** Forgets carried samples and ends the iteration in progress. */
  public void reset() {
    engine.reset();
  }

  @Override
  public void close() {
    try {
      engine.close();
    } finally {
      AutoCloseable r = resources;
      resources = null;
      if (r != null) {
        try {
          r.close();
        } catch (RuntimeException | Error e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(providerName + ": cannot close its source: " + e.getMessage(), e);
        }
      }
    }
  }
}
