package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.function.Predicate;

/** {@link Reader#filter}: keeps the items a predicate accepts. */
final class FilteredReader<T> implements Reader<T> {
  private final Reader<T> source;
  private final Predicate<? super T> keep;

  FilteredReader(Reader<T> source, Predicate<? super T> keep) {
    this.source = source;
    this.keep = keep;
  }

  @Override
  public PipelineIterator<T> iterator() {
    return over(source.iterator());
  }

  @Override
  public PipelineIterator<T> iterator(int pass) {
    return over(source.iterator(pass));
  }

  private PipelineIterator<T> over(PipelineIterator<T> in) {
    return new SourceIterator<T>(in) {
      private long index;

      @Override
      Object advance() {
        while (in.hasNext()) {
          T item = in.next();
          long i = index++;
          boolean kept;
          try {
            kept = keep.test(item);
          } catch (RuntimeException e) {
            throw StageFailedExceptions.wrap("filter", i, e);
          }
          if (kept) {
            return item;
          }
        }
        return END;
      }
    };
  }
}
