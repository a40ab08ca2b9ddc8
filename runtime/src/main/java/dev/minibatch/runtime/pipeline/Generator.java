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
}
