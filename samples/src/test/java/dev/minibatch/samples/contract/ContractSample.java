package dev.minibatch.samples.contract;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.runtime.contract.IndexedSamples;

/**
 * The provider contract's sample: generates {@code ContractSampleProvider} and {@code
 * ContractSampleBatch} from the test sources. Sample {@code i} is {@link IndexedSamples}'s
 * encoding: {@code xy = [i, 10000 + i]}, label {@code 20000 + i}.
 *
 * @param xy the data row
 * @param label the label
 */
@DataProvider(batchSize = 3)
public record ContractSample(
    @Provides(shape = {2}) float[] xy,
    @Provides(name = "softmax_label", label = true) int label) {

  /** Sample {@code i}. */
  static ContractSample of(int i) {
    return new ContractSample(IndexedSamples.data(i), IndexedSamples.label(i));
  }
}
