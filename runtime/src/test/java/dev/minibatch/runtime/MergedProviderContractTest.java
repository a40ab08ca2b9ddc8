package dev.minibatch.runtime;

import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.contract.RowValues;
import dev.minibatch.runtime.engine.MergedProvider;
import dev.minibatch.runtime.internal.settings.Sampling;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The provider contract on {@link MergedProvider} of two {@link ArrayDataProvider}s built with the
 * same settings (the second's arrays renamed), each prefetched on its own thread as by default: a
 * merged row holds sample {@code i} when all four arrays hold it. The resume tests compose the
 * merged position with both providers' states.
 */
class MergedProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Merged();
  }

  static final class Merged implements ProviderFixture {
    private final ArrayDataProviderContractTest.Arrays arrays = new ArrayDataProviderContractTest.Arrays();

    @Override
    public Set<Capability> capabilities() {
      return EnumSet.of(Capability.SHUFFLE, Capability.EVEN_SHARDS, Capability.THREADED, Capability.RESUME,
          Capability.PAD_CONTINUE);
    }

    /**
     * The second provider's arrays are named {@code data} and {@code softmax_label} inside it and
     * {@code data2} and {@code label2} once merged: a padding constant the settings give by name
     * names a merged array, so that provider pads with the constant of its merged names.
     */
    @Override
    public MergedProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      dev.minibatch.runtime.Settings.Padding padding = new Probe().apply(settings).resolved().padding();
      Consumer<ProviderBuilder<?>> second = b -> {
        b.apply(settings);
        b.padding("data", padding.valueFor("data2", false)).padding("softmax_label", padding.valueFor("label2", true));
      };
      return MergedProvider.builder()
          .add(arrays.build(numSamples, settings))
          .add(arrays.build(numSamples, second), Map.of("data", "data2", "softmax_label", "label2"))
          .build();
    }

    /** The settings as resolved. */
    private static final class Probe extends ProviderBuilder<Probe> {
      Sampling resolved() {
        return Sampling.resolve(settings());
      }
    }

    /** Data {@code data} and {@code data2} rows {@code [i, 10000 + i]}, labels {@code 20000 + i}. */
    @Override
    public boolean holds(Batch batch, int row, long sample) {
      if (batch.data().size() != 2 || batch.label().size() != 2) {
        return false;
      }
      for (int k = 0; k < 2; k++) {
        if (!RowValues.equals(batch.data().get(k), row, sample, IndexedSamples.DATA_OFFSET + sample)
            || !RowValues.equals(batch.label().get(k), row, IndexedSamples.LABEL_OFFSET + sample)) {
          return false;
        }
      }
      return true;
    }
  }
}
