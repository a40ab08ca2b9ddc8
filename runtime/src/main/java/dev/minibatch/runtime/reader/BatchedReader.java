package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** {@link Reader#batch}: groups consecutive items into unmodifiable lists. */
final class BatchedReader<T> extends PassReader<T, List<T>> {
  private final int size;
  private final boolean dropLast;

  BatchedReader(Reader<T> source, int size, boolean dropLast) {
    super(source);
    this.size = Check.atLeast("batch size", size, 1);
    this.dropLast = dropLast;
  }

  @Override
  PipelineIterator<List<T>> over(PipelineIterator<T> in) {
    return new SourceIterator<List<T>>(in) {
      @Override
      Object advance() {
        List<T> batch = new ArrayList<>(size);
        while (batch.size() < size && in.hasNext()) {
          batch.add(in.next());
        }
        if (batch.isEmpty() || (dropLast && batch.size() < size)) {
          return END;
        }
        return Collections.unmodifiableList(batch);
      }
    };
  }
}
