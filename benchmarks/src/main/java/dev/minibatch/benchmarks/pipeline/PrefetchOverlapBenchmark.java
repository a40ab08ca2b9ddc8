package dev.minibatch.benchmarks.pipeline;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import org.nd4j.linalg.dataset.AsyncDataSetIterator;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Prefetch overlap: a producer that takes ~2 ms per batch feeding a consumer that takes ~2 ms per
 * batch. Serially that is ~4 ms per batch; perfect overlap is 2 ms. The same producer (a DL4J
 * {@link DataSetIterator}) is run through minibatch's {@code buffered(2)} and through DL4J's {@link
 * AsyncDataSetIterator} (queue of 2), in the same run. Time per batch.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PrefetchOverlapBenchmark {
  static final int BATCHES = 100;
  static final long STEP_NANOS = 2_000_000;

  private DataSet batch;

  @Setup
  public void setUp() {
    batch = new DataSet(Nd4j.rand(32, 784), Nd4j.zeros(32, 10));
  }

  /** The producer: each batch costs {@link #STEP_NANOS}. */
  final class SlowBatches implements DataSetIterator {
    private static final long serialVersionUID = 1L;
    private int produced;
    private DataSetPreProcessor preProcessor;

    @Override
    public boolean hasNext() {
      return produced < BATCHES;
    }

    @Override
    public DataSet next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Work.busyFor(STEP_NANOS);
      produced++;
      return batch;
    }

    @Override
    public DataSet next(int num) {
      return next();
    }

    @Override
    public int inputColumns() {
      return 784;
    }

    @Override
    public int totalOutcomes() {
      return 10;
    }

    @Override
    public boolean resetSupported() {
      return true;
    }

    @Override
    public boolean asyncSupported() {
      return true;
    }

    @Override
    public void reset() {
      produced = 0;
    }

    @Override
    public int batch() {
      return 32;
    }

    @Override
    public void setPreProcessor(DataSetPreProcessor preProcessor) {
      this.preProcessor = preProcessor;
    }

    @Override
    public DataSetPreProcessor getPreProcessor() {
      return preProcessor;
    }

    @Override
    public List<String> getLabels() {
      return List.of();
    }
  }

  /** The consumer's step: ~2 ms per batch. */
  private static long consume(DataSet ds) {
    Work.busyFor(STEP_NANOS);
    return ds.numExamples();
  }

  @Benchmark
  @OperationsPerInvocation(BATCHES)
  public long serial() {
    long n = 0;
    SlowBatches it = new SlowBatches();
    while (it.hasNext()) {
      n += consume(it.next());
    }
    return n;
  }

  @Benchmark
  @OperationsPerInvocation(BATCHES)
  public long minibatchBuffered() {
    long n = 0;
    Reader<DataSet> reader = () -> PipelineIterator.of(new SlowBatches());
    try (PipelineIterator<DataSet> it = reader.buffered(2).iterator()) {
      while (it.hasNext()) {
        n += consume(it.next());
      }
    }
    return n;
  }

  @Benchmark
  @OperationsPerInvocation(BATCHES)
  public long dl4jAsyncDataSetIterator() {
    long n = 0;
    AsyncDataSetIterator it = new AsyncDataSetIterator(new SlowBatches(), 2);
    try {
      while (it.hasNext()) {
        n += consume(it.next());
      }
    } finally {
      it.shutdown();
    }
    return n;
  }
}
