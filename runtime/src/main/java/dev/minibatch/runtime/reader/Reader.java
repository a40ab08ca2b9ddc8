package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.pipeline.Progress;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.SampleContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A re-iterable source of single samples (Paddle's reader creator): every {@link #iterator()} is a
 * new pass from the start. Closing the iterator releases everything the pass started — files,
 * threads. The decorators below return new readers and read nothing until a pass starts.
 *
 * <p>A lambda is a reader: {@code Reader<Integer> r = () -> PipelineIterator.of(list.iterator());}
 *
 * @param <T> the sample type
 */
@FunctionalInterface
public interface Reader<T> extends Iterable<T> {
  /** Starts a pass. */
  @Override
  PipelineIterator<T> iterator();

  /**
   * Starts pass number {@code pass} (from 0): what a provider reads in its epoch {@code pass}. A
   * reader whose passes differ draws from the pass number — {@link #shuffle(int, long)} seeds its
   * generator with (seed, pass), {@link #xmap} hands the pass to its mappers as the epoch of their
   * {@link SampleContext} — so starting pass {@code p} again gives the same samples in the same
   * order, however many passes were started in between: what a provider that resumes replays. The
   * decorators here hand the number on to their sources; {@link #iterator()} instead counts the
   * passes started so far. By default the same as {@link #iterator()}, which is right for a reader
   * whose every pass is the same (a file, a list); override it where passes differ.
   */
  default PipelineIterator<T> iterator(int pass) {
    return iterator();
  }

  /** Runs {@code action} on every sample of one pass, and closes the pass however it ends. */
  @Override
  default void forEach(Consumer<? super T> action) {
    try (PipelineIterator<T> it = iterator()) {
      while (it.hasNext()) {
        action.accept(it.next());
      }
    }
  }

  /** One pass as a sequential stream; closing the stream closes the pass. */
  default Stream<T> stream() {
    PipelineIterator<T> it = iterator();
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED), false)
        .onClose(it::close);
  }

  /** One pass read into a new list. */
  default List<T> toList() {
    List<T> out = new ArrayList<>();
    forEach(out::add);
    return out;
  }

  /** Applies {@code fn} to every sample, on the consumer's thread (Paddle's {@code map_readers} of one reader). */
  default <R> Reader<R> map(Function<? super T, ? extends R> fn) {
    return new MappedReader<>(this, fn);
  }

  /** Keeps the samples {@code keep} accepts. */
  default Reader<T> filter(Predicate<? super T> keep) {
    return new FilteredReader<>(this, keep);
  }

  /**
   * Paddle's {@code shuffle}: fills a buffer of {@code bufferSize} samples, shuffles it, emits it,
   * and repeats; the last, partial buffer is shuffled too. Nothing is lost or repeated; a buffer of
   * at least the data's size gives a full permutation; {@code bufferSize <= 1} keeps the order.
   * Pass {@code p} uses a generator seeded by {@code (seed, p)}, so the order is a pure function of
   * the seed and the pass.
   */
  default Reader<T> shuffle(int bufferSize, long seed) {
    return new ShuffledReader<>(this, bufferSize, seed);
  }

  /** {@link #shuffle(int, long)} with a seed drawn now ({@link Seeds#unseeded()}). */
  default Reader<T> shuffle(int bufferSize) {
    return shuffle(bufferSize, Seeds.unseeded());
  }

  /**
   * Reads this reader ahead on a background producer thread, holding up to {@code size} samples
   * ready (Paddle's {@code buffered}); {@code size == 0} means unbounded. Work this reader does
   * sequentially (its {@code map}s, file reads) moves to that thread.
   *
   * @throws IllegalArgumentException now if {@code size < 0}
   */
  default Reader<T> buffered(int size) {
    return new PrefetchingReader<>(this, size);
  }

  /**
   * The first {@code n} samples; this reader is not asked for sample {@code n + 1}.
   *
   * @throws IllegalArgumentException now if {@code n < 0}
   */
  default Reader<T> firstn(long n) {
    return new FirstNReader<>(this, Check.atLeast("firstn's n", n, 0));
  }

  /**
   * Keeps the samples in memory after the first complete pass. Lazy, unlike Paddle's eager {@code
   * cache}: decorating reads nothing, the first pass streams from this reader while recording, and
   * later passes replay the recording. A pass abandoned early keeps nothing, so the next pass reads
   * this reader again. Samples are kept by reference: they must not be mutated by consumers.
   */
  default Reader<T> cache() {
    return new CachedReader<>(this);
  }

  /**
   * Paddle's {@code xmap_readers}: maps samples on {@code workers} threads. With {@code ordered} the
   * output keeps this reader's order whatever the number of workers; without it, samples come as
   * they are done. At most {@code bufferSize + workers} samples are in flight.
   *
   * @throws IllegalArgumentException now if {@code workers < 1} or {@code bufferSize < 1}
   */
  default <R> Reader<R> xmap(int workers, int bufferSize, boolean ordered, Function<? super T, ? extends R> mapper) {
    return xmap(ParallelOptions.of(workers, bufferSize, ordered), (item, context) -> mapper.apply(item));
  }

  /**
   * A parallel map with full options, whose mapper also receives the sample's {@link
   * dev.minibatch.runtime.pipeline.SampleContext} (its index, the epoch, a random generator seeded
   * from (seed, epoch, index) for augmentation that is the same whatever the number of workers).
   */
  default <R> Reader<R> xmap(ParallelOptions options, BiFunction<? super T, ? super SampleContext, ? extends R> mapper) {
    return new ParallelMappedReader<>(this, options, mapper);
  }

  /**
   * Groups consecutive samples into lists of {@code size} (Paddle's {@code batch}); the last list
   * is shorter unless {@code dropLast}, which drops it.
   *
   * @throws IllegalArgumentException now if {@code size < 1}
   */
  default Reader<List<T>> batch(int size, boolean dropLast) {
    return new BatchedReader<>(this, size, dropLast);
  }

  /** {@link #batch(int, boolean)} keeping a short last batch. */
  default Reader<List<T>> batch(int size) {
    return batch(size, false);
  }

  /**
   * Shows a progress bar on the console while a pass runs: {@code total} samples per pass, with the
   * pipeline's bottleneck as the bar's message. Needs {@code me.tongfei:progressbar} on the class
   * path.
   */
  default Reader<T> withProgress(String task, long total) {
    Reader<T> source = this;
    return new Reader<T>() {
      @Override
      public PipelineIterator<T> iterator() {
        return Progress.track(source.iterator(), task, total);
      }

      @Override
      public PipelineIterator<T> iterator(int pass) {
        return Progress.track(source.iterator(pass), task, total);
      }
    };
  }
}
