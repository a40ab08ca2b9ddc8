package dev.minibatch.runtime.pipeline;

/**
 * Where a {@link Generator} sends its samples. {@link #emit} blocks while the consumer's queue is
 * full, and throws (an unchecked exception the generator should let through) once the consumer has
 * closed the pipeline, so the generator's {@code finally} blocks run and its thread ends.
 *
 * @param <T> the sample type
 */
@FunctionalInterface
public interface Emitter<T> {
  /** Hands {@code item} to the consumer. */
  void emit(T item);
}
