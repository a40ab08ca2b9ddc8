package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.internal.pipeline.Stages;
import dev.minibatch.runtime.pipeline.Generator;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Reader creators and combinators (Paddle's {@code paddle.reader} functions). */
public final class Readers {
  /** The queue size of {@link #generate(Generator)}. */
  public static final int DEFAULT_GENERATOR_BUFFER = 64;

  private Readers() {}

  /** The given samples, in order. */
  @SafeVarargs
  public static <T> Reader<T> of(T... samples) {
    // Copied element by element: handing the varargs array itself to another method is what
    // -Xlint:varargs warns about, even in a @SafeVarargs method.
    List<T> list = new ArrayList<>(samples.length);
    for (T sample : samples) {
      list.add(sample);
    }
    return from(list);
  }

  /** The samples of {@code iterable}; each pass iterates it anew, so later changes show. */
  public static <T> Reader<T> from(Iterable<? extends T> iterable) {
    return () -> PipelineIterator.of(iterable.iterator());
  }

  /** The integers {@code [from, to)}. */
  public static Reader<Integer> range(int from, int to) {
    return () -> PipelineIterator.of(java.util.stream.IntStream.range(from, to).iterator());
  }

  /** The lines of a UTF-8 text file, without line terminators; each pass opens the file. */
  public static Reader<String> lines(Path path) {
    return lines(path, StandardCharsets.UTF_8);
  }

  /** The lines of a text file in {@code charset}. */
  public static Reader<String> lines(Path path, Charset charset) {
    return new LinesReader(path, charset);
  }

  /**
   * The samples {@code body} emits, produced on a producer thread with a bounded hand-off of {@link
   * #DEFAULT_GENERATOR_BUFFER} samples: the Java form of MXNet.jl's coroutine ({@code Task})
   * providers. Each pass runs {@code body} again; closing the pass makes its next {@code emit}
   * throw, which unwinds {@code body}.
   */
  public static <T> Reader<T> generate(Generator<T> body) {
    return generate(DEFAULT_GENERATOR_BUFFER, body);
  }

  /**
   * {@link #generate(Generator)} with a queue of {@code bufferSize} samples (0 for unbounded).
   *
   * @throws IllegalArgumentException now if {@code bufferSize < 0}
   */
  public static <T> Reader<T> generate(int bufferSize, Generator<T> body) {
    return generate("generate", bufferSize, body);
  }

  /**
   * {@link #generate(int, Generator)} as the stage {@code stage}: the name its stats and failures
   * give it and its thread's name ({@code minibatch-<stage>-0}), to tell several producers apart.
   *
   * @throws IllegalArgumentException now if {@code bufferSize < 0}
   */
  public static <T> Reader<T> generate(String stage, int bufferSize, Generator<T> body) {
    Objects.requireNonNull(stage, "stage");
    Check.atLeast("bufferSize", bufferSize, 0, "0 = unbounded");
    return () -> Stages.generate(stage, bufferSize, body);
  }

  /**
   * Paddle's {@code Fake}: the first sample of {@code source}, read once, repeated {@code n} times
   * per pass — to measure training speed without the cost of reading.
   */
  public static <T> Reader<T> fake(Reader<T> source, long n) {
    return new FakeReader<>(source, n);
  }

  /** The readers one after another (Paddle's {@code chain}). */
  @SafeVarargs
  public static <T> Reader<T> chain(Reader<? extends T>... readers) {
    List<Reader<? extends T>> list = new ArrayList<>(readers.length);
    for (Reader<? extends T> reader : readers) {
      list.add(reader);
    }
    return new ChainedReader<>(list);
  }

  /** The readers one after another. */
  public static <T> Reader<T> chain(List<? extends Reader<? extends T>> readers) {
    return new ChainedReader<>(List.copyOf(readers));
  }

  /**
   * Zips the readers into tuples, flattening tuple outputs (Paddle's {@code compose}); checks
   * alignment: when one reader ends while another has more, the pass throws {@link
   * ComposeNotAlignedException} after the aligned samples.
   */
  public static Reader<Tuple> compose(Reader<?>... readers) {
    return compose(true, readers);
  }

  /**
   * {@link #compose(Reader[])}; without {@code checkAlignment}, the pass ends quietly at the
   * shortest reader.
   */
  public static Reader<Tuple> compose(boolean checkAlignment, Reader<?>... readers) {
    return new ComposedReader(Arrays.asList(readers), checkAlignment);
  }

  /** {@link #compose(boolean, Reader[])} of a list of readers. */
  public static Reader<Tuple> compose(boolean checkAlignment, List<? extends Reader<?>> readers) {
    return new ComposedReader(readers, checkAlignment);
  }

  /**
   * Paddle's {@code map_readers}: zips the readers (stopping at the shortest) and maps each row —
   * one sample per reader, as a {@link Tuple} — with {@code fn}.
   */
  public static <R> Reader<R> mapReaders(List<? extends Reader<?>> readers, Function<? super Tuple, ? extends R> fn) {
    return new ZippedReader<>(readers, fn);
  }

  /** {@code mapReaders} of two readers with a typed function. */
  public static <A, B, R> Reader<R> mapReaders(Reader<A> first, Reader<B> second,
      BiFunction<? super A, ? super B, ? extends R> fn) {
    return new ZippedReader<>(List.of(first, second), row -> fn.apply(row.<A>get(0), row.<B>get(1)));
  }

  /**
   * An immutable row of values: what {@link Readers#compose} produces and what a feeding map picks
   * columns from (Paddle's tuples).
   */
  public static final class Tuple {
    private final Object[] values;

    private Tuple(Object[] values) {
      this.values = values;
    }

    /** A tuple of the given values. */
    public static Tuple of(Object... values) {
      return new Tuple(values.clone());
    }

    /** A tuple of the given values. */
    public static Tuple of(List<?> values) {
      return new Tuple(values.toArray());
    }

    static Tuple wrap(Object[] values) {
      return new Tuple(values);
    }

    /** The number of values. */
    public int size() {
      return values.length;
    }

    /**
     * The value at {@code index}, cast to the type the caller expects.
     *
     * @throws IndexOutOfBoundsException if there is no such column
     * @throws ClassCastException (at the call site) if the value is of another type
     */
    @SuppressWarnings("unchecked")
    public <V> V get(int index) {
      if (index < 0 || index >= values.length) {
        throw new IndexOutOfBoundsException("column " + index + " of a tuple of " + values.length);
      }
      return (V) values[index];
    }

    /** The values as an unmodifiable list. */
    public List<Object> asList() {
      return List.of(values);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Tuple && Arrays.equals(values, ((Tuple) o).values);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(values);
    }

    /** {@code (a, b, c)}. */
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < values.length; i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(values[i]);
      }
      return sb.append(')').toString();
    }
  }

  /**
   * {@link Readers#compose} with the alignment check found readers of different lengths (Paddle's
   * {@code ComposeNotAligned}). Thrown after the aligned items, when the first reader runs out
   * while another still has items.
   */
  public static final class ComposeNotAlignedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The readers disagree after {@code aligned} items. */
    public ComposeNotAlignedException(long aligned, String detail) {
      super("composed readers are not aligned: " + detail + " after " + aligned + " items");
    }
  }
}
