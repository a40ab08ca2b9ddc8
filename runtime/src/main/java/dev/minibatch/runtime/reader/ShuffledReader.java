package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.util.ArrayList;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link Reader#shuffle}: Paddle's block shuffle. Fill a buffer of {@code bufferSize} items,
 * shuffle it, emit it, repeat; the last, partial buffer is shuffled too. Pass {@code p} draws from
 * a generator seeded by (seed, p), so the order is a pure function of the seed and the pass: the
 * pass number given to {@link #iterator(int)}, or with {@link #iterator()} the count of passes
 * started so far.
 */
final class ShuffledReader<T> implements Reader<T> {
  private final Reader<T> source;
  private final int bufferSize;
  private final long seed;
  private final AtomicInteger passes = new AtomicInteger();

  ShuffledReader(Reader<T> source, int bufferSize, long seed) {
    this.source = source;
    this.bufferSize = bufferSize;
    this.seed = seed;
  }

  @Override
  public PipelineIterator<T> iterator() {
    return over(source.iterator(), passes.getAndIncrement());
  }

  @Override
  public PipelineIterator<T> iterator(int pass) {
    return over(source.iterator(pass), pass);
  }

  private PipelineIterator<T> over(PipelineIterator<T> in, int pass) {
    SplittableRandom random = new SplittableRandom(Seeds.derive(seed, pass));
    int capacity = Math.max(1, bufferSize);
    return new SourceIterator<T>(in) {
      private final ArrayList<T> buffer = new ArrayList<>(Math.min(capacity, 1 << 16));
      private int position;

      @Override
      Object advance() {
        if (position == buffer.size()) {
          buffer.clear();
          position = 0;
          while (buffer.size() < capacity && in.hasNext()) {
            buffer.add(in.next());
          }
          if (buffer.isEmpty()) {
            return END;
          }
          // Fisher–Yates; a buffer of one item keeps the order.
          for (int i = buffer.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            T t = buffer.get(i);
            buffer.set(i, buffer.get(j));
            buffer.set(j, t);
          }
        }
        T item = buffer.get(position);
        buffer.set(position++, null);
        return item;
      }
    };
  }
}
