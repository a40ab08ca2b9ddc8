package dev.minibatch.benchmarks.processor;

import dev.minibatch.runtime.BatchIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of variable length: one epoch of 2048 samples in batches of 64, through generated
 * providers, for fixed-length samples (64 frames of 64 floats) and for variable-length ones (1 to 64
 * frames of 64 floats, a skewed distribution: {@link #lengths}) padded per batch, and bucketed
 * (bounds 8, 16, 32, 64; and 32 bounds chosen by count). Time per epoch; divide by {@link #realElements} (printed at setup) for the
 * time per real element, the figure issue 13 compares: padding is work the fixed samples do not
 * do, masks and lengths too. Run: {@code mvn -B -ntp -pl benchmarks -am -DskipTests package exec:exec
 * -Dbench=SequenceCollateBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SequenceCollateBenchmark {
  static final int SAMPLES = 2048;
  static final int BATCH = 64;
  static final int FEATURES = 64;

  FixedFramesProvider fixed;
  VarFramesProvider padded;
  VarFramesProvider bucketed;
  VarFramesProvider fineBuckets;

  /**
   * Lengths from a skewed distribution, as text and speech have: {@code round(exp(N(ln 12, 0.7)))}
   * clamped to [1, 64], seeded, so most samples are short and a few long.
   */
  static int[] lengths() {
    Random r = new Random(13);
    int[] out = new int[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
      out[i] = (int) Math.max(1, Math.min(64, Math.round(Math.exp(Math.log(12) + 0.7 * r.nextGaussian()))));
    }
    return out;
  }

  /** The real elements of an epoch: {@code fixed} samples have 64 frames each. */
  static long realElements(boolean fixedLength) {
    long n = 0;
    for (int len : lengths()) {
      n += (long) (fixedLength ? 64 : len) * FEATURES;
    }
    return n;
  }

  @Setup(Level.Trial)
  public void setUp() {
    Random r = new Random(1);
    int[] lengths = lengths();
    List<FixedFrames> f = new ArrayList<>();
    List<VarFrames> v = new ArrayList<>();
    for (int i = 0; i < SAMPLES; i++) {
      f.add(new FixedFrames(frames(r, 64), i % 10));
      v.add(new VarFrames(frames(r, lengths[i]), i % 10));
    }
    fixed = FixedFramesProvider.builder().samples(f).batchSize(BATCH).shuffle(true).seed(1).build();
    padded = VarFramesProvider.builder().samples(v).batchSize(BATCH).shuffle(true).seed(1).build();
    bucketed = VarFramesProvider.builder().samples(v).batchSize(BATCH).shuffle(true).seed(1).buckets(8, 16, 32, 64)
        .build();
    fineBuckets = VarFramesProvider.builder().samples(v).batchSize(BATCH).shuffle(true).seed(1)
        .buckets(dev.minibatch.runtime.Buckets.byCount(32)).build();
    System.out.printf("%nreal elements per epoch: fixed %d, variable %d%n", realElements(true), realElements(false));
  }

  static float[][] frames(Random r, int n) {
    float[][] out = new float[n][FEATURES];
    for (float[] row : out) {
      for (int j = 0; j < FEATURES; j++) {
        row[j] = r.nextFloat();
      }
    }
    return out;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    fixed.close();
    padded.close();
    bucketed.close();
    fineBuckets.close();
  }

  @Benchmark
  public void fixedLength(Blackhole bh) {
    try (BatchIterator<FixedFramesBatch> it = fixed.iterator()) {
      while (it.hasNext()) {
        bh.consume(it.next());
      }
    }
  }

  @Benchmark
  public void variablePadded(Blackhole bh) {
    try (BatchIterator<VarFramesBatch> it = padded.iterator()) {
      while (it.hasNext()) {
        bh.consume(it.next());
      }
    }
  }

  @Benchmark
  public void variableFineBuckets(Blackhole bh) {
    try (BatchIterator<VarFramesBatch> it = fineBuckets.iterator()) {
      while (it.hasNext()) {
        bh.consume(it.next());
      }
    }
  }

  @Benchmark
  public void variableBucketed(Blackhole bh) {
    try (BatchIterator<VarFramesBatch> it = bucketed.iterator()) {
      while (it.hasNext()) {
        bh.consume(it.next());
      }
    }
  }
}
