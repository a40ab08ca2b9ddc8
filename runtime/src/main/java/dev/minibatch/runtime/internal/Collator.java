package dev.minibatch.runtime.internal;

/**
 * NOT API: the generated collate code of one sample type. Copies one sample's members into one row
 * of the batch buffers, with bulk, type-specialised copies into {@link CollateTarget}'s views.
 *
 * @param <S> the sample type
 */
@FunctionalInterface
public interface Collator<S> {
  /**
   * Copies {@code sample} into row {@code row}.
   *
   * @param sampleIndex the sample's index in its source, for error messages
   * @throws IllegalArgumentException if a member does not match its declared shape; the message is
   *     {@link dev.minibatch.shape.ShapeCheck#sampleMismatch}'s
   */
  void collate(S sample, long sampleIndex, CollateTarget target, int row);
}
