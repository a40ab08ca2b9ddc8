package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.engine.PrefetchingProvider;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The provider contract on {@link PrefetchingProvider} over a {@link FeedingProvider}: the wrapper's
 * generic path (a thread pulling the wrapped epoch), which resumes from the wrapped provider's
 * states recorded batch by batch.
 */
class PrefetchedFeedingProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Prefetched();
  }

  static final class Prefetched implements ProviderFixture {
    private final FeedingFixture feeding = new FeedingFixture(false);

    @Override
    public Set<Capability> capabilities() {
      return EnumSet.of(Capability.THREADED, Capability.RESUME);
    }

    @Override
    public PrefetchingProvider<NamedBatch> build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      return PrefetchingProvider.of(feeding.build(numSamples, settings));
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return feeding.holds(batch, row, sample);
    }
  }
}
