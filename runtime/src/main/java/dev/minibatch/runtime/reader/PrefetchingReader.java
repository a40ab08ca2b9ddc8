package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.internal.pipeline.Stages;
import dev.minibatch.runtime.pipeline.PipelineIterator;

/** {@link Reader#buffered}: reads the source ahead on a producer thread. */
final class PrefetchingReader<T> implements Reader<T> {
  private final Reader<T> source;
  private final int size;

  PrefetchingReader(Reader<T> source, int size) {
    this.source = source;
    this.size = Check.atLeast("buffer size", size, 0, "0 = unbounded");
  }

  @Override
  public PipelineIterator<T> iterator() {
    return Stages.prefetch("buffered", size, source.iterator());
  }

  @Override
  public PipelineIterator<T> iterator(int pass) {
    return Stages.prefetch("buffered", size, source.iterator(pass));
  }
}
