package dev.minibatch.runtime;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.engine.PrefetchingProvider;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The provider contract on {@link PrefetchingProvider} wrapping an {@link ArrayDataProvider}: the
 * settings go to the wrapped provider; the wrapper adds a background thread per epoch, and resumes
 * through the wrapped provider's engine (the resume tests run on it).
 */
class PrefetchingProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Prefetching();
  }

  static final class Prefetching implements ProviderFixture {
    private final ArrayDataProviderContractTest.Arrays arrays = new ArrayDataProviderContractTest.Arrays();

    @Override
    public Set<Capability> capabilities() {
      return EnumSet.of(Capability.SHUFFLE, Capability.EVEN_SHARDS, Capability.THREADED, Capability.RESUME,
          Capability.PAD_CONTINUE);
    }

    @Override
    public PrefetchingProvider<NamedBatch> build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      return PrefetchingProvider.of(arrays.build(numSamples, settings));
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return arrays.holds(batch, row, sample);
    }
  }
}
