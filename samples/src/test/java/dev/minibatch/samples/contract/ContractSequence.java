package dev.minibatch.samples.contract;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.runtime.contract.IndexedSamples;

/**
 * The provider contract's sample with a variable axis: sample {@code i} is a sequence of {@code 2 +
 * i % 3} steps that starts with {@link IndexedSamples}'s row {@code [i, 10000 + i]} (then steps of
 * 7), label {@code 20000 + i}; buckets are not set, so every batch pads to its longest sample.
 *
 * @param xy the data sequence
 * @param label the label
 */
@DataProvider(batchSize = 3)
public record ContractSequence(
    @Provides(shape = {VARIABLE}) float[] xy,
    @Provides(name = "softmax_label", label = true) int label) {

  /** Sample {@code i}. */
  static ContractSequence of(int i) {
    float[] xy = new float[2 + i % 3];
    java.util.Arrays.fill(xy, 7);
    System.arraycopy(IndexedSamples.data(i), 0, xy, 0, 2);
    return new ContractSequence(xy, IndexedSamples.label(i));
  }
}
