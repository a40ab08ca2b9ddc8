package dev.minibatch.runtime.pipeline;

/**
 * A map from one sample to another that may use the sample's {@link SampleContext} (its index, the
 * epoch and a deterministic random generator). Called from worker threads, concurrently: it must
 * not rely on unsynchronised shared state.
 *
 * @param <T> the input type
 * @param <R> the output type
 */
@FunctionalInterface
public interface ContextMapper<T, R> {
  /** Maps {@code item}. */
  R apply(T item, SampleContext context);
}
