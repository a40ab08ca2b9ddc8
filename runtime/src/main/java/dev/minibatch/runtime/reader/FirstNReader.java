package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;

/** {@link Reader#firstn}: the first n items; the source is not pulled past them. */
final class FirstNReader<T> extends PassReader<T, T> {
  private final long n;

  FirstNReader(Reader<T> source, long n) {
    super(source);
    this.n = n;
  }

  @Override
  PipelineIterator<T> over(PipelineIterator<T> in) {
    return new SourceIterator<T>(in) {
      private long taken;

      @Override
      Object advance() {
        // Check the count first: asking the source for item n+1 could cost a read (or a wait).
        if (taken >= n || !in.hasNext()) {
          return END;
        }
        taken++;
        return in.next();
      }
    };
  }
}
