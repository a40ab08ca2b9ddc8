package dev.minibatch.benchmarks.pipeline;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.reader.Readers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The cost per item of crossing a thread: a trivial pass through {@code buffered} and {@code
 * xmap} against the same reader read directly. Overhead per item = stage − direct. Goal < 1 µs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HandOffOverheadBenchmark {
  static final int ITEMS = 1_000_000;

  private static long drain(Reader<Integer> reader) {
    long sum = 0;
    try (PipelineIterator<Integer> it = reader.iterator()) {
      while (it.hasNext()) {
        sum += it.next();
      }
    }
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long direct() {
    return drain(Readers.range(0, ITEMS));
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long buffered() {
    return drain(Readers.range(0, ITEMS).buffered(1024));
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long xmap1Ordered() {
    return drain(Readers.range(0, ITEMS).xmap(1, 1024, true, x -> x));
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long xmap2Ordered() {
    return drain(Readers.range(0, ITEMS).xmap(2, 1024, true, x -> x));
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long xmap2Unordered() {
    return drain(Readers.range(0, ITEMS).xmap(2, 1024, false, x -> x));
  }
}
