package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link Reader#cache}: lazy. The first pass streams from the source and records the items; once a
 * pass has read the source to its end, the recording is kept and every later pass replays it
 * without touching the source. A pass that stops early (closed, failed) discards its recording, so
 * the next pass reads the source again.
 */
final class CachedReader<T> implements Reader<T> {
  private final Reader<T> source;
  private volatile @Nullable List<T> cached;

  CachedReader(Reader<T> source) {
    this.source = source;
  }

  @Override
  public PipelineIterator<T> iterator() {
    List<T> done = cached;
    return done != null ? PipelineIterator.of(done.iterator()) : recording(source.iterator());
  }

  /** The recording once there is one (every pass replays it), else pass {@code pass} of the source. */
  @Override
  public PipelineIterator<T> iterator(int pass) {
    List<T> done = cached;
    return done != null ? PipelineIterator.of(done.iterator()) : recording(source.iterator(pass));
  }

  private PipelineIterator<T> recording(PipelineIterator<T> in) {
    return new SourceIterator<T>(in) {
      private final List<T> recording = new ArrayList<>();

      @Override
      Object advance() {
        if (!in.hasNext()) {
          if (cached == null) {
            cached = List.copyOf(recording);
          }
          return END;
        }
        T item = in.next();
        recording.add(item);
        return item;
      }
    };
  }
}
