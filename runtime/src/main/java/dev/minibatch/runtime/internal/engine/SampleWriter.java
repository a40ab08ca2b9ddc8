package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.spi.RowWriter;
import java.util.List;

/**
 * Writes sample objects into batch rows: the generated collate code (and the feeding provider's
 * tuple collate) seen by the engine. {@link #over(List)} makes it a {@link RowWriter} over a list,
 * so objects go through the same row-writer contract as arrays and files.
 *
 * @param <S> the sample type
 */
@FunctionalInterface
public interface SampleWriter<S> {
  /**
   * For every row {@code r} in {@code [from, to)}: writes {@code samples.get(positions[r])} into
   * row {@code r} of {@code slot}; {@code slot.sampleIndices()[r]} is that sample's index in its
   * source, for error messages.
   */
  void write(List<? extends S> samples, int[] positions, int from, int to, Slot slot);

  /** The row writer of the samples of {@code samples}, addressed by their position in it. */
  default RowWriter over(List<? extends S> samples) {
    return (indices, from, to, slot) -> write(samples, indices, from, to, slot);
  }
}
