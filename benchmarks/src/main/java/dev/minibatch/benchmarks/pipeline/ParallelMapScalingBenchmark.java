package dev.minibatch.benchmarks.pipeline;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * A map costing ~50 µs of CPU per sample, through {@code xmap} with 1 and 2 workers and through a
 * plain sequential {@code map}; time per sample. Goal: 2 workers at least 1.8× faster than 1. The
 * work per sample is a fixed loop ({@link Work#ITERATIONS_50_US}), so the forks compare like with like.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ParallelMapScalingBenchmark {
  static final int SAMPLES = 4000;

  @Param({"1", "2"})
  public int workers;

  @Benchmark
  @OperationsPerInvocation(SAMPLES)
  public long xmap() {
    long sum = 0;
    try (PipelineIterator<Integer> it = Readers.range(0, SAMPLES).xmap(workers, 256, true, Work::cpu50us).iterator()) {
      while (it.hasNext()) {
        sum += it.next();
      }
    }
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(SAMPLES)
  public long sequentialMap() {
    long sum = 0;
    try (PipelineIterator<Integer> it = Readers.range(0, SAMPLES).map(Work::cpu50us).iterator()) {
      while (it.hasNext()) {
        sum += it.next();
      }
    }
    return sum;
  }
}
