package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.internal.pipeline.Stages;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.SampleContext;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * {@link Reader#xmap}: a parallel map; each pass is a new epoch for the sample context: the pass
 * number given to {@link #iterator(int)}, or with {@link #iterator()} the count of passes started so
 * far.
 */
final class ParallelMappedReader<T, R> implements Reader<R> {
  private final Reader<T> source;
  private final ParallelOptions options;
  private final BiFunction<? super T, ? super SampleContext, ? extends R> mapper;
  private final AtomicInteger passes = new AtomicInteger();

  ParallelMappedReader(Reader<T> source, ParallelOptions options, BiFunction<? super T, ? super SampleContext, ? extends R> mapper) {
    this.source = source;
    this.options = options;
    this.mapper = mapper;
  }

  @Override
  public PipelineIterator<R> iterator() {
    return Stages.parallelMap(source.iterator(), options, passes.getAndIncrement(), mapper);
  }

  @Override
  public PipelineIterator<R> iterator(int pass) {
    return Stages.parallelMap(source.iterator(pass), options, pass, mapper);
  }
}
