package dev.minibatch.benchmarks;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.NamedBatch;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One epoch of MNIST-sized data — 60000 samples of 784 float32 plus a 10-class one-hot float label
 * (3176 bytes a sample) — in batches of 128, through {@link ArrayDataProvider} in order and
 * shuffled, against the memory-copy limit measured in the same run: copying the same bytes between
 * plain Java arrays with {@code System.arraycopy}, row blocks in order and a gather of the same
 * shuffled rows. The score is samples per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ArrayDataProviderBenchmark.N)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
@State(Scope.Benchmark)
public class ArrayDataProviderBenchmark {
  static final int N = 60_000;
  static final int FEATURES = 784;
  static final int CLASSES = 10;
  static final int BATCH = 128;

  private ArrayDataProvider sequential;
  private ArrayDataProvider shuffled;

  private float[] heapX;
  private float[] heapY;
  private float[] batchX;
  private float[] batchY;
  private int[] order;
  private long epoch;

  /** Builds the data once: random features, one-hot labels, the same values on and off heap. */
  @Setup(Level.Trial)
  public void setUp() {
    INDArray x = Nd4j.rand(DataType.FLOAT, N, FEATURES);
    INDArray y = Nd4j.zeros(DataType.FLOAT, N, CLASSES);
    for (int i = 0; i < N; i++) {
      y.putScalar(i, i % CLASSES, 1f);
    }
    sequential = ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).build();
    shuffled = ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).shuffle(true).seed(1).build();
    heapX = x.data().asFloat();
    heapY = y.data().asFloat();
    batchX = new float[BATCH * FEATURES];
    batchY = new float[BATCH * CLASSES];
    order = new int[N];
    for (int i = 0; i < N; i++) {
      order[i] = i;
    }
  }

  /** Frees the providers' buffers. */
  @TearDown(Level.Trial)
  public void tearDown() {
    sequential.close();
    shuffled.close();
  }

  /** One epoch in order through the provider. */
  @Benchmark
  public void providerInOrder(Blackhole bh) {
    for (NamedBatch b : sequential) {
      bh.consume(b);
    }
  }

  /** One shuffled epoch through the provider (a new permutation each epoch). */
  @Benchmark
  public void providerShuffled(Blackhole bh) {
    for (NamedBatch b : shuffled) {
      bh.consume(b);
    }
  }

  /** The limit for in-order batches: one arraycopy of each batch's rows, features and labels. */
  @Benchmark
  public void copyInOrder(Blackhole bh) {
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      System.arraycopy(heapX, start * FEATURES, batchX, 0, rows * FEATURES);
      System.arraycopy(heapY, start * CLASSES, batchY, 0, rows * CLASSES);
      bh.consume(batchX);
    }
  }

  /**
   * The limit for shuffled batches: a fresh permutation per epoch (as the provider draws), then one
   * arraycopy per row for the features and the labels of 128 random rows.
   */
  @Benchmark
  public void gatherShuffled(Blackhole bh) {
    SplittableRandom rng = new SplittableRandom(epoch++);
    for (int i = N - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      for (int r = 0; r < rows; r++) {
        int s = order[start + r];
        System.arraycopy(heapX, s * FEATURES, batchX, r * FEATURES, FEATURES);
        System.arraycopy(heapY, s * CLASSES, batchY, r * CLASSES, CLASSES);
      }
      bh.consume(batchX);
    }
  }
}
