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
   * <p>Samples that come fast are handed over in small groups, so the consumer is woken once per
   * group rather than once per sample; a sample that took long to produce is handed over at once.
   * A generator that is about to wait for something other than its own work (a socket, another
   * thread) calls {@link #flush()} first, so the samples it has emitted do not wait with it.
   *
   * @param <T> the sample type
   */
  @FunctionalInterface
  public interface Emitter<T> {
    /** Hands {@code item} to the consumer. */
    void emit(T item);

    /**
     * Hands over every sample emitted so far at once, blocking while the consumer's queue is full;
     * throws as {@link #emit} does once the consumer has closed the pipeline. Does nothing by
     * default, for an emitter that hands each sample over as it comes.
     */
    default void flush() {}
  }
}
