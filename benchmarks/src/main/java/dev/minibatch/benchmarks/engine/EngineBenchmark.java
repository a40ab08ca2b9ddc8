package dev.minibatch.benchmarks.engine;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.BytePointer;
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
 * The batching engine's fill loop against the machine's limit, in one run: one shuffled epoch of
 * MNIST-sized data (60000 samples of 784 float32 with a 10-class one-hot float label, 3176 bytes a
 * sample) in batches of 128.
 *
 * <ul>
 *   <li>{@code offHeapGather} — the limit: a fresh permutation (the same Fisher–Yates the engine
 *       draws), then one bulk off-heap copy per row of the same source arrays into two preallocated
 *       off-heap batch buffers of the provider's shape, used in turn; no bookkeeping.
 *   <li>{@code arrayShuffled} / {@code arrayShuffledTwoReaders} — {@code ArrayDataProvider} filling
 *       on the consumer's thread, and on two reader threads that each write half of every batch.
 *   <li>{@code generatedShuffled} / {@code generatedInOrder} and {@code arrayInOrder} — the provider
 *       generated from the {@link Mnist784} record over a List of the same samples, against the array
 *       provider.
 * </ul>
 *
 * Samples per second. Run: {@code mvn -pl benchmarks -am -DskipTests package exec:exec
 * -Dbench=EngineBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(EngineBenchmark.N)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
@State(Scope.Benchmark)
public class EngineBenchmark {
  static final int N = 60_000;
  static final int FEATURES = 784;
  static final int CLASSES = 10;
  static final int BATCH = 128;

  private ArrayDataProvider arrayInOrder;
  private ArrayDataProvider arrayShuffled;
  private ArrayDataProvider arrayTwoReaders;
  private Mnist784Provider generatedInOrder;
  private Mnist784Provider generatedShuffled;

  private ByteBuffer srcX;
  private ByteBuffer srcY;
  private final ByteBuffer[] dstX = new ByteBuffer[2];
  private final ByteBuffer[] dstY = new ByteBuffer[2];
  private final INDArray[] keep = new INDArray[4];
  private int[] order;
  private long epoch;

  /** The same random samples as arrays and as records. */
  @Setup(Level.Trial)
  public void setUp() {
    INDArray x = Nd4j.rand(DataType.FLOAT, N, FEATURES);
    INDArray y = Nd4j.zeros(DataType.FLOAT, N, CLASSES);
    for (int i = 0; i < N; i++) {
      y.putScalar(i, i % CLASSES, 1f);
    }
    arrayInOrder = ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).build();
    arrayShuffled = ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).shuffle(true).seed(1).build();
    arrayTwoReaders = ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).shuffle(true).seed(1).readers(2)
        .build();
    float[] fx = x.data().asFloat();
    float[] fy = y.data().asFloat();
    List<Mnist784> samples = new ArrayList<>(N);
    for (int i = 0; i < N; i++) {
      float[] image = new float[FEATURES];
      System.arraycopy(fx, i * FEATURES, image, 0, FEATURES);
      float[] label = new float[CLASSES];
      System.arraycopy(fy, i * CLASSES, label, 0, CLASSES);
      samples.add(new Mnist784(image, label));
    }
    generatedInOrder = Mnist784Provider.builder().samples(samples).batchSize(BATCH).build();
    generatedShuffled = Mnist784Provider.builder().samples(samples).batchSize(BATCH).shuffle(true).seed(1).build();
    srcX = bytes(x);
    srcY = bytes(y);
    for (int s = 0; s < 2; s++) {
      keep[2 * s] = Nd4j.createUninitialized(DataType.FLOAT, BATCH, FEATURES);
      keep[2 * s + 1] = Nd4j.createUninitialized(DataType.FLOAT, BATCH, CLASSES);
      dstX[s] = bytes(keep[2 * s]);
      dstY[s] = bytes(keep[2 * s + 1]);
    }
    order = new int[N];
  }

  private static ByteBuffer bytes(INDArray a) {
    long n = a.length() * a.data().getElementSize();
    return new BytePointer(a.data().addressPointer()).limit(n).asByteBuffer().order(ByteOrder.nativeOrder());
  }

  /** Frees the providers' buffers. */
  @TearDown(Level.Trial)
  public void tearDown() {
    arrayInOrder.close();
    arrayShuffled.close();
    arrayTwoReaders.close();
    generatedInOrder.close();
    generatedShuffled.close();
  }

  /** The limit: permutation plus one bulk off-heap copy per row into preallocated off-heap buffers. */
  @Benchmark
  public void offHeapGather(Blackhole bh) {
    for (int i = 0; i < N; i++) {
      order[i] = i;
    }
    SplittableRandom rng = new SplittableRandom(epoch++);
    for (int i = N - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int rowX = FEATURES * 4;
    int rowY = CLASSES * 4;
    int slot = 0;
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      ByteBuffer bx = dstX[slot];
      ByteBuffer by = dstY[slot];
      for (int r = 0; r < rows; r++) {
        int s = order[start + r];
        bx.put(r * rowX, srcX, s * rowX, rowX);
        by.put(r * rowY, srcY, s * rowY, rowY);
      }
      bh.consume(bx);
      slot ^= 1;
    }
  }

  /** ArrayDataProvider, shuffled, rows copied on the consumer's thread. */
  @Benchmark
  public void arrayShuffled(Blackhole bh) {
    for (NamedBatch b : arrayShuffled) {
      bh.consume(b);
    }
  }

  /** ArrayDataProvider, shuffled, rows copied by two reader threads. */
  @Benchmark
  public void arrayShuffledTwoReaders(Blackhole bh) {
    for (NamedBatch b : arrayTwoReaders) {
      bh.consume(b);
    }
  }

  /** ArrayDataProvider in order: one bulk copy per batch. */
  @Benchmark
  public void arrayInOrder(Blackhole bh) {
    for (NamedBatch b : arrayInOrder) {
      bh.consume(b);
    }
  }

  /** The generated provider over a List of records, shuffled. */
  @Benchmark
  public void generatedShuffled(Blackhole bh) {
    for (Mnist784Batch b : generatedShuffled) {
      bh.consume(b);
    }
  }

  /** The generated provider over a List of records, in order. */
  @Benchmark
  public void generatedInOrder(Blackhole bh) {
    for (Mnist784Batch b : generatedInOrder) {
      bh.consume(b);
    }
  }
}
