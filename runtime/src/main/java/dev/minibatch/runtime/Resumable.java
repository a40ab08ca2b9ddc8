package dev.minibatch.runtime;

/**
 * A provider whose iteration can be saved and resumed: after {@code restoreState(s)}, the next
 * iteration yields exactly the batches that followed when {@code s} was saved.
 */
public interface Resumable {
  /** The current iteration state: the epoch in progress and its delivered batches, or the next epoch. */
  IterationState saveState();

  /**
   * Continues from {@code state} at the next iteration; an iteration in progress ends.
   *
   * @throws IllegalArgumentException if the state was saved with other data or settings
   */
  void restoreState(IterationState state);
}
