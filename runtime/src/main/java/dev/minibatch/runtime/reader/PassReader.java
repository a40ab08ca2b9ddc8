package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;

/**
 * A reader that turns each pass of its source into a pass of its own, item by item on the
 * consumer's thread: {@link #over} is the one step, and a pass {@code p} of this reader reads pass
 * {@code p} of the source (so a shuffled source replays its order through it).
 *
 * @param <T> the source's items
 * @param <R> this reader's items
 */
abstract class PassReader<T, R> implements Reader<R> {
  private final Reader<T> source;

  PassReader(Reader<T> source) {
    this.source = source;
  }

  /** This reader's pass over {@code in}, one pass of the source. */
  abstract PipelineIterator<R> over(PipelineIterator<T> in);

  @Override
  public final PipelineIterator<R> iterator() {
    return over(source.iterator());
  }

  @Override
  public final PipelineIterator<R> iterator(int pass) {
    return over(source.iterator(pass));
  }
}
