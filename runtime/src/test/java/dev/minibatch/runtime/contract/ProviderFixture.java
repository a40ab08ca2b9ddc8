package dev.minibatch.runtime.contract;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.ProviderBuilder;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * How {@link ProviderContract} builds and inspects one kind of provider.
 *
 * <p>The data of a fixture must say which sample a row holds: sample {@code i}'s content encodes
 * {@code i}, in its data arrays and in its label arrays, so that {@link #holds} can tell a row that
 * holds sample {@code i} from one that holds any other sample, a padding constant or stale bytes.
 * For example, data row {@code [i, 10000 + i]} and label {@code 20000 + i}.
 */
public interface ProviderFixture {
  /** What a provider can do beyond reading its samples in order; tests needing more are skipped. */
  enum Capability {
    /** {@code shuffle(true)} gives a permutation per epoch, a pure function of (seed, epoch). */
    SHUFFLE,
    /** {@code evenShards(true)} is accepted and gives every part {@code ceil(n / k)} samples. */
    EVEN_SHARDS,
    /** The provider is a {@link dev.minibatch.runtime.Resumable} that can save and restore its state. */
    RESUME,
    /** Iteration runs on threads of the engine (named {@code minibatch-...}). */
    THREADED,
    /** {@link #buildFailing} can make sample {@code k} fail. */
    FAILING_SAMPLE,
    /**
     * {@code lastBatch(PAD_CONTINUE)} is accepted: the last batch is padded with the next epoch's
     * first samples, which that epoch then skips (MXNet's {@code round_batch}).
     */
    PAD_CONTINUE
  }

  /**
   * The capabilities of a random-access provider (arrays, files, lists): shuffle, even shards,
   * resume, PAD_CONTINUE.
   */
  static Set<Capability> randomAccess() {
    return EnumSet.of(Capability.SHUFFLE, Capability.EVEN_SHARDS, Capability.RESUME, Capability.PAD_CONTINUE);
  }

  /** What this fixture's providers can do. */
  Set<Capability> capabilities();

  /**
   * A new provider of samples {@code 0 .. numSamples - 1}, in that source order, configured by
   * {@code settings} (applied to the provider's {@link ProviderBuilder}; the contract sets batch
   * size, last-batch policy, shuffle, seed, shards and padding through it and nothing else).
   */
  BatchProvider<? extends Batch> build(int numSamples, Consumer<? super ProviderBuilder<?>> settings);

  /**
   * Whether row {@code row} of {@code batch} holds sample {@code sample}: every data and label array
   * of the row has exactly that sample's content. Called right after the iterator returned the
   * batch.
   */
  boolean holds(Batch batch, int row, long sample);

  /**
   * The epochs {@code provider} delivers where the last-batch policy alone would deliver {@code
   * policyEpochs} (the contract's expectation, worked out by hand): the same epochs (the default),
   * or for a provider that fixes its epochs' length whatever the policy (a {@code ResizedProvider}),
   * what that provider's documented rule makes of them. Asked where the policy's epochs differ in
   * length (ROLL_OVER, PAD_CONTINUE); elsewhere the contract expects a fixture to keep the policy's
   * epochs (a {@code ResizedProvider} fixture sets its length to theirs). The rule picks batches, so
   * the contract also passes, in the shape of the epochs, which rows are padding ({@code 1}) and
   * which are not ({@code 0}), and expects them picked alike. A fixture may return fewer epochs than
   * it is given (a provider that takes more than one of the policy's epochs for one of its own).
   */
  default List<List<List<Long>>> epochs(BatchProvider<? extends Batch> provider, List<List<List<Long>>> policyEpochs) {
    return policyEpochs;
  }

  /**
   * As {@link #build}, but reading or processing sample {@code failingSample} throws {@code
   * failure} (in the provider's source, map or process function: wherever user code runs for one
   * sample). Needed only with {@link Capability#FAILING_SAMPLE}.
   */
  default BatchProvider<? extends Batch> buildFailing(int numSamples, int failingSample, RuntimeException failure,
      Consumer<? super ProviderBuilder<?>> settings) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot inject a failing sample");
  }
}
