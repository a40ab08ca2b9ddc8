package dev.minibatch.runtime.example;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.util.Set;
import java.util.function.Consumer;

/** The whole provider contract holds for a provider written on the engine in ~100 lines. */
class ComputedProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new ProviderFixture() {
      @Override
      public Set<Capability> capabilities() {
        return ProviderFixture.randomAccess();
      }

      @Override
      public BatchProvider<? extends Batch> build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
        return ComputedProvider.builder()
            .samples(numSamples, 2, (i, k) -> IndexedSamples.data(i)[k])
            .label(IndexedSamples::label)
            .apply(settings)
            .build();
      }

      @Override
      public boolean holds(Batch batch, int row, long sample) {
        return IndexedSamples.holds(batch, row, sample);
      }
    };
  }
}
