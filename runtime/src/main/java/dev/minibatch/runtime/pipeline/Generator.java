package dev.minibatch.runtime.pipeline;

/**
 * A function that produces samples by calling {@link Emitter#emit}: the Java form of MXNet.jl's
 * coroutine ({@code Task}) providers and Python generators. It runs on its own producer thread;
 * returning ends the stream, throwing fails it (the consumer gets a {@link StageFailedException}).
 *
 * <pre>{@code
 * Reader<Integer> squares = Readers.generate(out -> {
 *   for (int i = 0; i < 10; i++) out.emit(i * i);
 * });
 * }</pre>
 *
 * @param <T> the sample type
 */
@FunctionalInterface
public interface Generator<T> {
  /** Emits the samples of one pass. */
  void generate(Emitter<T> out);

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
}
