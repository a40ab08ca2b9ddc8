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
 * 3, 3, 4, 3 batches) each of its epochs is the first 3 batches of a wrapped epoch, under
 * PAD_CONTINUE (4, 3, 3) the second of every three also takes the next wrapped epoch's first batch. The resume tests
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

    /**
     * restartEachEpoch: each epoch starts a fresh wrapped epoch and takes its first {@code
     * batchesPerEpoch} batches, going on into the wrapped epochs after it while it is shorter
     * (PAD_CONTINUE's epochs of 4, 3, 3 batches: the second takes the third's first batch); the
     * next epoch starts the wrapped epoch after the last one it read from.
     */
    @Override
    public List<List<List<Long>>> epochs(BatchProvider<? extends Batch> provider, List<List<List<Long>>> policyEpochs) {
      int length = ((ResizedProvider<?>) provider).batchesPerEpoch();
      List<List<List<Long>>> out = new ArrayList<>();
      int wrapped = 0;
      while (wrapped < policyEpochs.size()) {
        List<List<Long>> epoch = new ArrayList<>();
        while (epoch.size() < length && wrapped < policyEpochs.size()) {
          List<List<Long>> w = policyEpochs.get(wrapped++);
          epoch.addAll(w.subList(0, Math.min(w.size(), length - epoch.size())));
        }
        if (epoch.size() == length) {
          out.add(epoch);
        }
      }
      return out;
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return arrays.holds(batch, row, sample);
    }
  }
}
