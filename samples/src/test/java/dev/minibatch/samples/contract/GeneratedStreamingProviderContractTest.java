package dev.minibatch.samples.contract;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The provider contract on a generated provider over a plain {@link Iterable} (streaming: one pass
 * per epoch, in order; no shuffle, even shards or resume). A failing sample is the iterable's
 * iterator throwing when asked for sample {@code k}.
 */
class GeneratedStreamingProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Streaming();
  }

  static final class Streaming implements ProviderFixture {
    @Override
    public Set<Capability> capabilities() {
      return EnumSet.of(Capability.FAILING_SAMPLE, Capability.RESUME);
    }

    @Override
    public ContractSampleProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      return ContractSampleProvider.builder().streaming(samples(numSamples, -1, null)).apply(settings).build();
    }

    @Override
    public ContractSampleProvider buildFailing(int numSamples, int failingSample, RuntimeException failure,
        Consumer<? super ProviderBuilder<?>> settings) {
      return ContractSampleProvider.builder().streaming(samples(numSamples, failingSample, failure)).apply(settings)
          .build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return IndexedSamples.holds(batch, row, sample);
    }

    /** A plain iterable (not a List, not a Reader) of samples {@code 0 .. n - 1}, each pass from 0. */
    private static Iterable<ContractSample> samples(int n, int failing, @Nullable RuntimeException failure) {
      return () -> new Iterator<>() {
        private int next;

        @Override
        public boolean hasNext() {
          return next < n;
        }

        @Override
        public ContractSample next() {
          if (next >= n) {
            throw new NoSuchElementException();
          }
          if (next == failing && failure != null) {
            throw failure;
          }
          return ContractSample.of(next++);
        }
      };
    }
  }
}
