package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.function.Function;

/** {@link Reader#map}: applies a function on the consumer's thread. */
final class MappedReader<T, R> extends PassReader<T, R> {
  private final Function<? super T, ? extends R> fn;

  MappedReader(Reader<T> source, Function<? super T, ? extends R> fn) {
    super(source);
    this.fn = fn;
  }

  @Override
  PipelineIterator<R> over(PipelineIterator<T> in) {
    return new SourceIterator<R>(in) {
      private long index;

      @Override
      Object advance() {
        if (!in.hasNext()) {
          return END;
        }
        T item = in.next();
        long i = index++;
        try {
          return fn.apply(item);
        } catch (RuntimeException e) {
          throw StageFailedExceptions.wrap("map", i, e);
        }
      }
    };
  }
}
