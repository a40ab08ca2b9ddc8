package dev.minibatch;

/**
 * What happens to a sample whose variable axis is longer than its {@link Provides#maxLength()}.
 * Keras calls the two truncations {@code truncating='pre'} and {@code 'post'}.
 */
public enum TooLong {
  /** The sample is an error naming the field, the sample and both lengths. */
  ERROR,
  /** The first steps are dropped: the last {@code maxLength} steps are kept. */
  TRUNCATE_START,
  /** The last steps are dropped: the first {@code maxLength} steps are kept. */
  TRUNCATE_END
}
