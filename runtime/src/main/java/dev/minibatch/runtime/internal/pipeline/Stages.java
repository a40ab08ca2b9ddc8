package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.pipeline.Generator;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.SampleContext;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Starts threaded stages. Each returns the consumer's end as a {@link PipelineIterator}; the stage
 * owns its source from then on and closes it when it ends or is closed.
 */
public final class Stages {
  private Stages() {}

  /**
   * Runs {@code body} on a producer thread that hands samples over through a queue of at most
   * {@code bufferSize} items (0 for unbounded).
   *
   * @param name the stage's name in stats, failures and thread names
   * @throws IllegalArgumentException if {@code bufferSize < 0}
   */
  public static <T> PipelineIterator<T> generate(String name, int bufferSize, Generator<T> body) {
    checkBuffer(bufferSize);
    return ProducerStage.start(name, bufferSize, body, () -> {}, () -> PipelineStats.EMPTY);
  }

  /**
   * Reads {@code source} ahead on a producer thread, keeping at most {@code bufferSize} items
   * (0 for unbounded) ready for the consumer (Paddle's {@code buffered}). The source is pulled on
   * that thread, so whatever sequential work it does runs in the background.
   */
  public static <T> PipelineIterator<T> prefetch(String name, int bufferSize, PipelineIterator<? extends T> source) {
    checkBuffer(bufferSize);
    Generator<T> pull = out -> {
      while (source.hasNext()) {
        out.emit(source.next());
      }
    };
    return ProducerStage.start(name, bufferSize, pull, source::close, source::stats);
  }

  /**
   * Maps {@code source} on {@link ParallelOptions#workers()} threads. In order, the output is
   * {@code mapper} applied to the source's items in the source's order, whatever the number of
   * workers.
   *
   * @param epoch the pass number given to {@link SampleContext#epoch()}
   */
  public static <T, R> PipelineIterator<R> parallelMap(PipelineIterator<? extends T> source,
      ParallelOptions options, int epoch, BiFunction<? super T, ? super SampleContext, ? extends R> mapper) {
    return ParallelMapStage.start(source, options, epoch, mapper);
  }

  /** {@link #parallelMap(PipelineIterator, ParallelOptions, int, BiFunction)} for a plain function. */
  public static <T, R> PipelineIterator<R> parallelMap(PipelineIterator<? extends T> source,
      ParallelOptions options, Function<? super T, ? extends R> mapper) {
    return ParallelMapStage.start(source, options, 0, (item, context) -> mapper.apply(item));
  }

  /**
   * Runs {@code body} on a producer thread that hands each item over and waits until the consumer
   * has taken it: the producer prepares item {@code k + 1} while the consumer holds item {@code k},
   * and never more (prefetching into a ring of two reused buffers).
   */
  public static <T> PipelineIterator<T> handOff(String name, Generator<T> body) {
    return ProducerStage.handOff(name, body, () -> {}, () -> PipelineStats.EMPTY);
  }

  /**
   * True for the unchecked exception a generator's {@code emit} throws once its consumer has gone:
   * a generator that catches exceptions must let it through.
   */
  public static boolean isStop(Throwable t) {
    return t instanceof Channel.Stopped;
  }

  private static void checkBuffer(int bufferSize) {
    Check.atLeast("bufferSize", bufferSize, 0, "0 = unbounded");
  }
}
