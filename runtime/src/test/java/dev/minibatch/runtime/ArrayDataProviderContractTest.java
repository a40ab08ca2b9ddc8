package dev.minibatch.runtime;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.util.Set;
import java.util.function.Consumer;
import org.nd4j.linalg.factory.Nd4j;

/** The provider contract on {@link ArrayDataProvider}. */
class ArrayDataProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Arrays();
  }

  /** Float32 data {@code (n, 2)} and int32 labels {@code (n)} in memory, encoded by {@link IndexedSamples}. */
  static final class Arrays implements ProviderFixture {
    @Override
    public Set<Capability> capabilities() {
      return ProviderFixture.randomAccess();
    }

    @Override
    public ArrayDataProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      return ArrayDataProvider.builder()
          .data(Nd4j.create(IndexedSamples.data(0, numSamples)))
          .label(Nd4j.createFromArray(IndexedSamples.labels(0, numSamples)))
          .apply(settings)
          .build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return IndexedSamples.holds(batch, row, sample);
    }
  }
}
