package dev.minibatch.runtime.internal;

import dev.minibatch.runtime.internal.engine.CollateTarget;
import java.util.List;

/**
 * NOT API: the generated collate code of one sample type. Copies a run of samples into consecutive
 * rows of the batch buffers, with bulk, type-specialised copies into {@link CollateTarget}'s views.
 * {@link SampleBatcher} hands it to the engine as its {@link dev.minibatch.runtime.internal.engine.SampleWriter}.
 *
 * <p>One call per batch, not per sample: the row loop lives in the generated code, so it is
 * monomorphic and inlinable whatever else the application collates, and the typed views are looked
 * up once per batch instead of once per row.
 *
 * @param <S> the sample type
 */
@FunctionalInterface
public interface Collator<S> {
  /**
   * For every row {@code r} in {@code [from, to)}: copies {@code samples.get(positions[r])} into row
   * {@code r}. {@code sampleIndices[r]} is that sample's index in its source, for error messages.
   *
   * @throws IllegalArgumentException if a member does not match its declared shape; the message is
   *     {@link dev.minibatch.shape.ShapeCheck#sampleMismatch}'s
   * @throws NullPointerException for a null sample or a null member, naming the sample's index
   */
  void collate(List<? extends S> samples, int[] positions, long[] sampleIndices, int from, int to,
      CollateTarget target);
}
