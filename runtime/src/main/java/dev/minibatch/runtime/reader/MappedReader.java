package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.function.Function;

/** {@link Reader#map}: applies a function on the consumer's thread. */
final class MappedReader<T, R> implements Reader<R> {
  private final Reader<T> source;
  private final Function<? super T, ? extends R> fn;

  MappedReader(Reader<T> source, Function<? super T, ? extends R> fn) {
    this.source = source;
    this.fn = fn;
  }

  @Override
  public PipelineIterator<R> iterator() {
    return over(source.iterator());
  }

  @Override
  public PipelineIterator<R> iterator(int pass) {
    return over(source.iterator(pass));
  }

  private PipelineIterator<R> over(PipelineIterator<T> in) {
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
