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
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The provider contract on a generated provider of variable-length samples over a {@link List},
 * collated by two reader threads: every policy, shuffle, shards, resume and the thread rules hold
 * with padded batches, and a row holds sample {@code
 * i} when it starts with {@code [i, 10000 + i]}, has its length {@code 2 + i % 3} and mask, and
 * label {@code 20000 + i}.
 */
class GeneratedSequenceProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new SequenceSource();
  }

  static final class SequenceSource implements ProviderFixture {
    @Override
    public Set<Capability> capabilities() {
      Set<Capability> c = java.util.EnumSet.copyOf(ProviderFixture.randomAccess());
      c.add(Capability.THREADED);
      return c;
    }

    /** Collated by two reader threads, so the contract's thread tests run on the generated readers(n). */
    @Override
    public ContractSequenceProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      List<ContractSequence> samples = IntStream.range(0, numSamples).mapToObj(ContractSequence::of).toList();
      return ContractSequenceProvider.builder().samples(samples).readers(2).apply(settings).build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      INDArray xy = batch.data().get(0);
      INDArray lengths = batch.lengths("xy");
      INDArray mask = batch.mask("xy");
      int length = (int) (2 + sample % 3);
      if (lengths == null || mask == null || lengths.getInt(row) != length || xy.getDouble(row, 0) != sample
          || xy.getDouble(row, 1) != IndexedSamples.DATA_OFFSET + sample
          || batch.label().get(0).getDouble(row) != IndexedSamples.LABEL_OFFSET + sample) {
        return false;
      }
      for (int t = 0; t < xy.size(1); t++) {
        if (mask.getDouble(row, t) != (t < length ? 1 : 0) || xy.getDouble(row, t) != (t < 2 ? xy.getDouble(row, t)
            : t < length ? 7 : 0)) {
          return false;
        }
      }
      return true;
    }
  }
}
