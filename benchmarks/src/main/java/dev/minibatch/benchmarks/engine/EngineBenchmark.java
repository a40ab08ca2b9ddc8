package dev.minibatch.benchmarks.engine;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.engine.PrefetchingProvider;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The batching engine's fill loop against the machine's limit, in one run: one shuffled epoch of
 * MNIST-sized data (60000 samples of 784 float32 with a 10-class one-hot float label, 3176 bytes a
 * sample) in batches of 128.
 *
 * <ul>
 *   <li>{@code limitUnsafe}, {@code limitMemcpy}, {@code limitByteBuffer} — the limit, once with
 *       each row copy the JVM offers for off-heap memory ({@link RowCopies}): a fresh permutation
 *       (the same Fisher–Yates the engine draws), then the feature row and the label row of every
 *       sample copied from the same source arrays into two preallocated off-heap batch buffers of
 *       the provider's shape, used in turn; no bookkeeping. The fastest of them is the limit the
 *       providers are quoted against.
 *   <li>{@code limitHeap} — the same gather between heap {@code float[]}s with {@code
 *       System.arraycopy}, for comparison.
 *   <li>{@code limitUnsafeTwoThreads} — two threads gathering their own epochs at once, the limit
 *       for {@code readers(2)}.
 *   <li>{@code arrayShuffled} / {@code arrayShuffledTwoReaders} — {@code ArrayDataProvider} filling
 *       on the consumer's thread, and on two reader threads that each write whole batches (the
 *       consumer writes one too rather than wait).
 *   <li>{@code arrayShuffledPrefetched} — {@code PrefetchingProvider.of} the shuffled array
 *       provider, which must not be slower than the provider alone.
 *   <li>{@code generatedShuffled} / {@code generatedInOrder} and {@code arrayInOrder} — the provider
 *       generated from the {@link Mnist784} record over a List of the same samples, against the array
 *       provider.
 *   <li>{@code generatedStreaming} — the same generated provider over an Iterable of the same samples
 *       (not a List): the streaming path, one pass of the source per epoch.
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
  private PrefetchingProvider<NamedBatch> arrayPrefetched;
  private Mnist784Provider generatedInOrder;
  private Mnist784Provider generatedShuffled;
  private Mnist784Provider generatedStreaming;

  private ByteBuffer srcX;
  private ByteBuffer srcY;
  private final ByteBuffer[] dstX = new ByteBuffer[2];
  private final ByteBuffer[] dstY = new ByteBuffer[2];
  private long addrX;
  private long addrY;
  private final long[] dstAddrX = new long[2];
  private final long[] dstAddrY = new long[2];
  private final Pointer[] pointers = new Pointer[2];
  private final Pointer[] dstPointerX = new Pointer[2];
  private final Pointer[] dstPointerY = new Pointer[2];
  private float[] heapX;
  private float[] heapY;
  private final float[][] heapDstX = new float[2][BATCH * FEATURES];
  private final float[][] heapDstY = new float[2][BATCH * CLASSES];
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
    arrayPrefetched = PrefetchingProvider.of(
        ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).shuffle(true).seed(1).build());
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
    // An Iterable that is not a List: the streaming path, one pass per epoch.
    generatedStreaming = Mnist784Provider.builder().streaming(samples::iterator).batchSize(BATCH).build();
    srcX = bytes(x);
    srcY = bytes(y);
    addrX = x.data().address();
    addrY = y.data().address();
    pointers[0] = new BytePointer(x.data().addressPointer());
    pointers[1] = new BytePointer(y.data().addressPointer());
    heapX = fx;
    heapY = fy;
    for (int s = 0; s < 2; s++) {
      keep[2 * s] = Nd4j.createUninitialized(DataType.FLOAT, BATCH, FEATURES);
      keep[2 * s + 1] = Nd4j.createUninitialized(DataType.FLOAT, BATCH, CLASSES);
      dstX[s] = bytes(keep[2 * s]);
      dstY[s] = bytes(keep[2 * s + 1]);
      dstAddrX[s] = keep[2 * s].data().address();
      dstAddrY[s] = keep[2 * s + 1].data().address();
      dstPointerX[s] = new BytePointer(keep[2 * s].data().addressPointer());
      dstPointerY[s] = new BytePointer(keep[2 * s + 1].data().addressPointer());
    }
    order = new int[N];
    checkLimitsCopy(x, y);
  }

  /** Each limit copies the right rows: a limit that copied less would flatter it. */
  private void checkLimitsCopy(INDArray x, INDArray y) {
    int[] rows = {N - 1, 0, 12_345};
    try {
      for (int variant = 0; variant < 4; variant++) {
        keep[0].assign(0f);
        keep[1].assign(0f);
        Arrays.fill(heapDstX[0], 0f);
        Arrays.fill(heapDstY[0], 0f);
        switch (variant) {
          case 0 -> RowCopies.byteBuffers(rows, 0, 3, srcX, srcY, dstX[0], dstY[0], FEATURES * 4, CLASSES * 4);
          case 1 -> RowCopies.unsafe(rows, 0, 3, addrX, addrY, dstAddrX[0], dstAddrY[0], FEATURES * 4, CLASSES * 4);
          case 2 -> RowCopies.memcpy(rows, 0, 3, pointers[0], pointers[1], dstPointerX[0], dstPointerY[0],
              FEATURES * 4, CLASSES * 4);
          default -> RowCopies.heap(rows, 0, 3, heapX, heapY, heapDstX[0], heapDstY[0], FEATURES, CLASSES);
        }
        for (int r = 0; r < 3; r++) {
          float want = x.getFloat(rows[r], FEATURES - 1);
          float got = variant == 3 ? heapDstX[0][r * FEATURES + FEATURES - 1] : keep[0].getFloat(r, FEATURES - 1);
          float wantLabel = y.getFloat(rows[r], rows[r] % CLASSES);
          float gotLabel = variant == 3 ? heapDstY[0][r * CLASSES + rows[r] % CLASSES]
              : keep[1].getFloat(r, rows[r] % CLASSES);
          if (want != got || wantLabel != gotLabel) {
            throw new IllegalStateException("limit variant " + variant + " copied row " + rows[r] + " wrong");
          }
        }
      }
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** A fresh permutation of the samples, drawn as the engine draws it (Fisher–Yates). */
  private void permute() {
    permute(order, new SplittableRandom(epoch++));
  }

  static void permute(int[] order, SplittableRandom rng) {
    for (int i = 0; i < N; i++) {
      order[i] = i;
    }
    for (int i = N - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
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
    arrayPrefetched.close();
    generatedInOrder.close();
    generatedShuffled.close();
    generatedStreaming.close();
  }

  /** The limit with {@code Unsafe.copyMemory} row copies. */
  @Benchmark
  public void limitUnsafe(Blackhole bh) throws Throwable {
    permute();
    int slot = 0;
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      RowCopies.unsafe(order, start, rows, addrX, addrY, dstAddrX[slot], dstAddrY[slot], FEATURES * 4, CLASSES * 4);
      bh.consume(dstAddrX[slot]);
      slot ^= 1;
    }
  }

  /**
   * The two-thread limit: two threads, each gathering whole shuffled epochs with its own
   * permutation and batch buffers ({@code Unsafe} row copies), so the score is both together.
   */
  @Benchmark
  @Threads(2)
  public void limitUnsafeTwoThreads(OwnBuffers own, Blackhole bh) throws Throwable {
    own.permute();
    int slot = 0;
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      RowCopies.unsafe(own.order, start, rows, addrX, addrY, own.dstX[slot], own.dstY[slot], FEATURES * 4,
          CLASSES * 4);
      bh.consume(own.dstX[slot]);
      slot ^= 1;
    }
  }

  /** One thread's permutation and batch buffers, for {@link #limitUnsafeTwoThreads}. */
  @State(Scope.Thread)
  public static class OwnBuffers {
    final int[] order = new int[N];
    final long[] dstX = new long[2];
    final long[] dstY = new long[2];
    private final INDArray[] keep = new INDArray[4];
    private long epoch;

    /** Two batch buffers of the provider's shape. */
    @Setup(Level.Trial)
    public void setUp() {
      for (int s = 0; s < 2; s++) {
        keep[2 * s] = Nd4j.createUninitialized(DataType.FLOAT, BATCH, FEATURES);
        keep[2 * s + 1] = Nd4j.createUninitialized(DataType.FLOAT, BATCH, CLASSES);
        dstX[s] = keep[2 * s].data().address();
        dstY[s] = keep[2 * s + 1].data().address();
      }
    }

    void permute() {
      EngineBenchmark.permute(order, new SplittableRandom(epoch++));
    }
  }

  /** The limit with JavaCPP's JNI {@code memcpy} row copies. */
  @Benchmark
  public void limitMemcpy(Blackhole bh) {
    permute();
    int slot = 0;
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      RowCopies.memcpy(order, start, rows, pointers[0], pointers[1], dstPointerX[slot], dstPointerY[slot],
          FEATURES * 4, CLASSES * 4);
      bh.consume(dstPointerX[slot]);
      slot ^= 1;
    }
  }

  /** The limit with direct {@code ByteBuffer} bulk puts. */
  @Benchmark
  public void limitByteBuffer(Blackhole bh) {
    permute();
    int slot = 0;
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      RowCopies.byteBuffers(order, start, rows, srcX, srcY, dstX[slot], dstY[slot], FEATURES * 4, CLASSES * 4);
      bh.consume(dstX[slot]);
      slot ^= 1;
    }
  }

  /** The same gather between heap arrays with {@code System.arraycopy}. */
  @Benchmark
  public void limitHeap(Blackhole bh) {
    permute();
    int slot = 0;
    for (int start = 0; start < N; start += BATCH) {
      int rows = Math.min(BATCH, N - start);
      RowCopies.heap(order, start, rows, heapX, heapY, heapDstX[slot], heapDstY[slot], FEATURES, CLASSES);
      bh.consume(heapDstX[slot]);
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

  /** {@code PrefetchingProvider.of} the shuffled ArrayDataProvider: must not be slower than it alone. */
  @Benchmark
  public void arrayShuffledPrefetched(Blackhole bh) {
    for (NamedBatch b : arrayPrefetched) {
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

  /** The generated provider over an Iterable of records (the streaming path), in order. */
  @Benchmark
  public void generatedStreaming(Blackhole bh) {
    for (Mnist784Batch b : generatedStreaming) {
      bh.consume(b);
    }
  }
}
