package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.function.Predicate;

/** {@link Reader#filter}: keeps the items a predicate accepts. */
final class FilteredReader<T> extends PassReader<T, T> {
  private final Predicate<? super T> keep;

  FilteredReader(Reader<T> source, Predicate<? super T> keep) {
    super(source);
    this.keep = keep;
  }

  @Override
  PipelineIterator<T> over(PipelineIterator<T> in) {
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
