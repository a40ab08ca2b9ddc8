package dev.minibatch.benchmarks.processor;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One batch of 256 samples, four ways: the generated provider in steady state (an epoch of 16
 * batches over 4096 samples; each op is the next batch, a new epoch every 16 ops); a hand-written
 * copy loop doing the same job — the same samples in the same order, copied through NIO views into
 * the native memory of preallocated INDArrays, the sample indices recorded, and two buffer sets
 * used in turn so the previous batch stays valid while the next is filled, as the provider
 * guarantees ({@code handWritten}); the same loop into one buffer set, without indices (the lower
 * bound, {@code handWrittenOneBuffer}); and the per-sample ND4J approach ({@code Nd4j.create} per
 * sample, then concat). Time per batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class CollateBenchmark {
  static final int BATCH = 256;
  static final int SAMPLES = 16 * BATCH;
  int cursor;
  java.util.Iterator<Flat784Batch> flatIt;
  java.util.Iterator<TenFieldsBatch> tenIt;

  List<Flat784> flat;
  List<TenFields> ten;
  Flat784Provider flatProvider;
  TenFieldsProvider tenProvider;
  /** Hand-written: two buffer sets used in turn; index [slot]. */
  INDArray[] handPixels = new INDArray[2];
  INDArray[] handLabels = new INDArray[2];
  FloatBuffer[] handPixelView = new FloatBuffer[2];
  IntBuffer[] handLabelView = new IntBuffer[2];
  long[][] handIndices = new long[2][BATCH];
  INDArray[][] handTen = new INDArray[2][];
  FloatBuffer[][] handTenFloat = new FloatBuffer[2][];
  LongBuffer[] handTenId = new LongBuffer[2];
  IntBuffer[] handTenLabel = new IntBuffer[2];
  int slot;

  @Setup(Level.Trial)
  public void setUp() {
    Random r = new Random(1);
    flat = new ArrayList<>();
    ten = new ArrayList<>();
    for (int i = 0; i < SAMPLES; i++) {
      float[] p = new float[784];
      for (int j = 0; j < p.length; j++) {
        p[j] = r.nextFloat();
      }
      flat.add(new Flat784(p, i % 10));
      ten.add(new TenFields(r.nextFloat(), r.nextFloat(), r.nextFloat(), r.nextFloat(), vec(r, 4), vec(r, 4),
          vec(r, 8), new float[][] {vec(r, 2), vec(r, 2)}, i, i % 3));
    }
    flatProvider = Flat784Provider.create(b -> b.samples(flat).batchSize(BATCH));
    tenProvider = TenFieldsProvider.create(b -> b.samples(ten).batchSize(BATCH));
    long[][] shapes = {{BATCH}, {BATCH}, {BATCH}, {BATCH}, {BATCH, 4}, {BATCH, 4}, {BATCH, 8}, {BATCH, 2, 2}};
    for (int k = 0; k < 2; k++) {
      handPixels[k] = Nd4j.create(DataType.FLOAT, BATCH, 784);
      handLabels[k] = Nd4j.create(DataType.INT32, BATCH);
      handPixelView[k] = view(handPixels[k]).asFloatBuffer();
      handLabelView[k] = view(handLabels[k]).asIntBuffer();
      handTen[k] = new INDArray[10];
      handTenFloat[k] = new FloatBuffer[8];
      for (int i = 0; i < 8; i++) {
        handTen[k][i] = Nd4j.create(DataType.FLOAT, shapes[i]);
        handTenFloat[k][i] = view(handTen[k][i]).asFloatBuffer();
      }
      handTen[k][8] = Nd4j.create(DataType.INT64, BATCH);
      handTen[k][9] = Nd4j.create(DataType.INT32, BATCH);
      handTenId[k] = view(handTen[k][8]).asLongBuffer();
      handTenLabel[k] = view(handTen[k][9]).asIntBuffer();
    }
  }

  private static float[] vec(Random r, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = r.nextFloat();
    }
    return v;
  }

  private static java.nio.ByteBuffer view(INDArray a) {
    long bytes = a.length() * a.data().getElementSize();
    return new BytePointer(a.data().addressPointer()).limit(bytes).asByteBuffer().order(ByteOrder.nativeOrder());
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    flatProvider.close();
    tenProvider.close();
  }

  private int nextBase() {
    int base = cursor;
    cursor = (cursor + BATCH) % SAMPLES;
    return base;
  }

  @Benchmark
  public INDArray flat784_generated() {
    if (flatIt == null || !flatIt.hasNext()) {
      flatIt = flatProvider.iterator();
    }
    return flatIt.next().getPixels();
  }

  private int nextSlot() {
    int k = slot;
    slot ^= 1;
    return k;
  }

  @Benchmark
  public INDArray flat784_handWritten() {
    int base = nextBase();
    int k = nextSlot();
    FloatBuffer pixels = handPixelView[k];
    IntBuffer labels = handLabelView[k];
    long[] idx = handIndices[k];
    for (int i = 0; i < BATCH; i++) {
      Flat784 s = flat.get(base + i);
      pixels.put(i * 784, s.pixels(), 0, 784);
      labels.put(i, s.label());
      idx[i] = base + i;
    }
    return handPixels[k];
  }

  @Benchmark
  public INDArray flat784_handWrittenOneBuffer() {
    int base = nextBase();
    FloatBuffer pixels = handPixelView[0];
    IntBuffer labels = handLabelView[0];
    for (int i = 0; i < BATCH; i++) {
      Flat784 s = flat.get(base + i);
      pixels.put(i * 784, s.pixels(), 0, 784);
      labels.put(i, s.label());
    }
    return handPixels[0];
  }

  @Benchmark
  public INDArray flat784_nd4jPerSample() {
    INDArray[] rows = new INDArray[BATCH];
    INDArray[] labels = new INDArray[BATCH];
    int base = nextBase();
    for (int i = 0; i < BATCH; i++) {
      Flat784 s = flat.get(base + i);
      rows[i] = Nd4j.create(s.pixels(), new long[] {1, 784}, 'c');
      labels[i] = Nd4j.scalar(s.label()).reshape(1);
    }
    Nd4j.concat(0, labels);
    return Nd4j.vstack(rows);
  }

  @Benchmark
  public INDArray tenFields_generated() {
    if (tenIt == null || !tenIt.hasNext()) {
      tenIt = tenProvider.iterator();
    }
    return tenIt.next().getE();
  }

  @Benchmark
  public INDArray tenFields_handWritten() {
    int base = nextBase();
    int k = nextSlot();
    tenRows(base, handTenFloat[k], handTenId[k], handTenLabel[k]);
    long[] idx = handIndices[k];
    for (int i = 0; i < BATCH; i++) {
      idx[i] = base + i;
    }
    return handTen[k][4];
  }

  @Benchmark
  public INDArray tenFields_handWrittenOneBuffer() {
    tenRows(nextBase(), handTenFloat[0], handTenId[0], handTenLabel[0]);
    return handTen[0][4];
  }

  private void tenRows(int base, FloatBuffer[] f, LongBuffer id, IntBuffer label) {
    for (int i = 0; i < BATCH; i++) {
      TenFields s = ten.get(base + i);
      f[0].put(i, s.a());
      f[1].put(i, s.b());
      f[2].put(i, s.c());
      f[3].put(i, s.d());
      f[4].put(i * 4, s.e(), 0, 4);
      f[5].put(i * 4, s.f(), 0, 4);
      f[6].put(i * 8, s.g(), 0, 8);
      f[7].put(i * 4, s.h()[0], 0, 2);
      f[7].put(i * 4 + 2, s.h()[1], 0, 2);
      id.put(i, s.id());
      label.put(i, s.label());
    }
  }

  @Benchmark
  public INDArray tenFields_nd4jPerSample() {
    INDArray[][] cols = new INDArray[10][BATCH];
    int base = nextBase();
    for (int i = 0; i < BATCH; i++) {
      TenFields s = ten.get(base + i);
      cols[0][i] = Nd4j.scalar(s.a()).reshape(1);
      cols[1][i] = Nd4j.scalar(s.b()).reshape(1);
      cols[2][i] = Nd4j.scalar(s.c()).reshape(1);
      cols[3][i] = Nd4j.scalar(s.d()).reshape(1);
      cols[4][i] = Nd4j.create(s.e(), new long[] {1, 4}, 'c');
      cols[5][i] = Nd4j.create(s.f(), new long[] {1, 4}, 'c');
      cols[6][i] = Nd4j.create(s.g(), new long[] {1, 8}, 'c');
      cols[7][i] = Nd4j.create(s.h()).reshape(1, 2, 2);
      cols[8][i] = Nd4j.scalar(s.id()).reshape(1);
      cols[9][i] = Nd4j.scalar(s.label()).reshape(1);
    }
    INDArray out = null;
    for (int k = 0; k < 10; k++) {
      INDArray c = Nd4j.concat(0, cols[k]);
      if (k == 4) {
        out = c;
      }
    }
    return out;
  }
}
