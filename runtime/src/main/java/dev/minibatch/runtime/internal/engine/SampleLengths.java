package dev.minibatch.runtime.internal.engine;

/**
 * Reads a sample's length along the variable axis of each length group (generated code). Called by
 * generated code: its shape may change in any release.
 *
 * @param <S> the sample type
 */
@FunctionalInterface
public interface SampleLengths<S> {
  /**
   * The length of {@code sample}'s variable axis in length group {@code group}, before any
   * truncation; {@code index} is the sample's index in its source, for the error of a null member.
   */
  int length(S sample, int group, long index);
}
