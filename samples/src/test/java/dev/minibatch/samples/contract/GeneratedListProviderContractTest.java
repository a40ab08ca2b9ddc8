package dev.minibatch.samples.contract;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/** The provider contract on a generated provider over a {@link List} (random access). */
class GeneratedListProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new ListSource();
  }

  static final class ListSource implements ProviderFixture {
    @Override
    public Set<Capability> capabilities() {
      return ProviderFixture.randomAccess();
    }

    @Override
    public ContractSampleProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      List<ContractSample> samples = IntStream.range(0, numSamples).mapToObj(ContractSample::of).toList();
      return ContractSampleProvider.builder().samples(samples).apply(settings).build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return IndexedSamples.holds(batch, row, sample);
    }
  }
}
