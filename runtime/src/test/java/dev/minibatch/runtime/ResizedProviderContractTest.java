package dev.minibatch.runtime;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.engine.ResizedProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The provider contract on {@link ResizedProvider} over an {@link ArrayDataProvider}, restarting
 * the wrapped epoch every epoch (MXNet's default). Its length is the wrapped provider's first epoch's,
 * so where the policy's epochs all have one length the wrapper keeps them; under ROLL_OVER (epochs of
 * 3, 3, 4, 3 batches) each of its epochs is the first 3 batches of a wrapped epoch. The resume tests
 * compose the wrapper's position with the wrapped provider's state.
 */
class ResizedProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Resized();
  }

  static final class Resized implements ProviderFixture {
    private final ArrayDataProviderContractTest.Arrays arrays = new ArrayDataProviderContractTest.Arrays();

    @Override
    public Set<Capability> capabilities() {
      return ProviderFixture.randomAccess();
    }

    @Override
    public ResizedProvider<NamedBatch> build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      int batches = 0;
      try (ArrayDataProvider probe = arrays.build(numSamples, settings)) {
        for (NamedBatch b : probe) {
          batches++;
        }
      }
      int length = Math.max(1, batches);
      return ResizedProvider.create(arrays.build(numSamples, settings),
          b -> b.batchesPerEpoch(length).restartEachEpoch(true));
    }

    /** restartEachEpoch: epoch {@code e} is the first {@code batchesPerEpoch} batches of wrapped epoch {@code e}. */
    @Override
    public List<List<List<Long>>> epochs(BatchProvider<? extends Batch> provider, List<List<List<Long>>> policyEpochs) {
      int length = ((ResizedProvider<?>) provider).batchesPerEpoch();
      List<List<List<Long>>> out = new ArrayList<>();
      for (List<List<Long>> e : policyEpochs) {
        if (e.size() < length) {
          throw new IllegalStateException("a wrapped epoch of " + e.size() + " batches is shorter than " + length);
        }
        out.add(e.subList(0, length));
      }
      return out;
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return arrays.holds(batch, row, sample);
    }
  }
}
