package dev.minibatch.benchmarks.engine;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.engine.PrefetchingProvider;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.reader.Readers;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.bytedeco.javacpp.BytePointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Issue 25's in-memory ratios, each taken within one round of one run: the shared bench's
 * workloads ({@code ../shared/bench}: 60 000 samples of 784 float32 features and a 10-class one-hot
 * float32 label, batches of 128, {@code PARTIAL}, a fresh permutation per epoch, the same consumer
 * touch) through the public API, next to the machine's limits measured in the same rounds.
 *
 * <p>This VM's speed drifts by up to ±20 % between runs minutes apart, which moves a ratio whose
 * two sides come from different runs (the shared bench runs each variant in its own JVM, one after
 * another). Here every round runs a block of whole epochs of every variant back to back, in an order
 * that rotates from round to round, and each ratio is taken within a round; the median and range
 * over the rounds are printed. Two groups:
 *
 * <ul>
 *   <li><b>Shuffled epochs</b> (blocks of at least {@code -DblockMs}, default 400 ms): {@code
 *       limit-1}, a plain loop that draws the permutation and copies every sample's feature row
 *       and label row out of the same native arrays into two preallocated off-heap batch buffers
 *       used in turn, with {@code Unsafe.copyMemory} (the fastest JVM row copy here, {@link
 *       RowCopies}); {@code limit-1-touch}, the same reading the next sample's rows ahead of their
 *       copy (software prefetch); the limit a one-thread provider is quoted against is the faster
 *       of the two (by the median over the rounds). {@code limit-2}: the plain loop on two threads, each copying
 *       every other batch into buffers of its own (the C {@code gather2} limit's split). Then
 *       {@code adp}, {@code generated}, {@code adp-prefetch} ({@code
 *       PrefetchingProvider.of(adp)}), {@code readers2} and {@code generated-readers2}, as the
 *       shared bench's runner builds them.
 *   <li><b>Prefetch</b> (one epoch of 500 batches per round): a producer and a consumer that each
 *       burn 2 ms of their own thread's CPU per batch. {@code two-threads}: two threads that burn
 *       side by side with nothing between them (the machine's own overlap); {@code
 *       prefetching-provider}: {@code PrefetchingProvider.of} a generated provider over a streaming
 *       source that burns the producer's 2 ms every 128 rows; {@code generate}: {@code
 *       Readers.generate}, the producer emitting a fresh copy of a batch-sized array; {@code serial}:
 *       the streaming provider unwrapped. The ideal is 2.000 ms a batch; the producer alone (its
 *       burn and its batch's collate, {@code serial} minus the consumer's 2 ms) is what any
 *       overlap can reach at best.
 * </ul>
 *
 * <p>Run (docs/performance.md): {@code mvn -B -ntp -pl benchmarks -am -DskipTests package}, {@code
 * mvn -B -ntp -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/tmp/cp}, then {@code
 * java -Xmx6g -cp "benchmarks/target/classes:runtime/target/classes:api/target/classes:$(cat
 * /tmp/cp)" dev.minibatch.benchmarks.engine.InMemoryPairs 15 5} (shuffled rounds, prefetch rounds).
 */
public final class InMemoryPairs {
  static final int N = 60_000;
  static final int F = 784;
  static final int C = 10;
  static final int B = 128;
  static final long SEED = 1234;
  static final int PREFETCH_BATCHES = 500;
  static final long BURN_NS = 2_000_000L;
  private static final ThreadMXBean TMX = ManagementFactory.getThreadMXBean();
  /** Where touches go, so no epoch is optimised away. */
  static volatile double sink;

  private InMemoryPairs() {}

  /** One variant: a named epoch that returns the samples it delivered. */
  record Variant(String name, LongSupplier epoch) {}

  /** Runs {@code args[0]} shuffled rounds (default 15) and {@code args[1]} prefetch rounds (default 5). */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int prefetchRounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    long blockMs = Long.getLong("blockMs", 400);
    System.out.printf(Locale.ROOT, "# %d cores, %s%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.version"));
    if (rounds > 0) {
      shuffled(rounds, blockMs);
    }
    if (prefetchRounds > 0) {
      prefetch(prefetchRounds);
    }
    System.err.println("# sink " + sink);
    System.exit(0);
  }

  // ------------------------------------------------------------------ shuffled epochs

  static float[] features() {
    float[] x = new float[N * F];
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < F; j++) {
        x[i * F + j] = ((i * 31 + j * 17) % 256) / 255f;
      }
    }
    return x;
  }

  static float[] oneHot() {
    float[] y = new float[N * C];
    for (int i = 0; i < N; i++) {
      y[i * C + (i * 7 + 3) % 10] = 1f;
    }
    return y;
  }

  /** The shared bench's consumer touch: the last row's last feature and last label column. */
  static long touch(Batch b) {
    INDArray f = b.data().get(0);
    INDArray l = b.label().get(0);
    long n = b.countSamples();
    sink += f.getFloat(n - 1, F - 1) + l.getFloat(n - 1, C - 1);
    return n;
  }

  /** One epoch: every batch touched as the shared bench's consumer does; the iterator closed at the end. */
  static long drain(BatchIterator<? extends Batch> epoch) {
    long n = 0;
    try (BatchIterator<? extends Batch> it = epoch) {
      while (it.hasNext()) {
        n += touch(it.next());
      }
    }
    return n;
  }

  static void shuffled(int rounds, long blockMs) throws Exception {
    float[] fx = features();
    float[] fy = oneHot();
    INDArray x = Nd4j.create(fx, new long[] {N, F}, 'c');
    INDArray y = Nd4j.create(fy, new long[] {N, C}, 'c');
    List<Mnist784> rows = new ArrayList<>(N);
    for (int i = 0; i < N; i++) {
      rows.add(new Mnist784(Arrays.copyOfRange(fx, i * F, (i + 1) * F), Arrays.copyOfRange(fy, i * C, (i + 1) * C)));
    }
    ArrayDataProvider adp = array(x, y, 0);
    ArrayDataProvider readers2 = array(x, y, 2);
    PrefetchingProvider<NamedBatch> prefetched = PrefetchingProvider.of(array(x, y, 0));
    Mnist784Provider generated = generated(rows, 0);
    Mnist784Provider generated2 = generated(rows, 2);
    Gather limit = new Gather(x, y);
    ExecutorService second = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "limit-2");
      t.setDaemon(true);
      return t;
    });
    List<Variant> variants = List.of(
        new Variant("limit-1", limit::epoch),
        new Variant("limit-1-touch", limit::epochTouching),
        new Variant("limit-2", () -> limit.twoThreads(second)),
        new Variant("adp", () -> drain(adp.iterator())),
        new Variant("generated", () -> drain(generated.iterator())),
        new Variant("adp-prefetch", () -> drain(prefetched.iterator())),
        new Variant("readers2", () -> drain(readers2.iterator())),
        new Variant("generated-readers2", () -> drain(generated2.iterator())));
    double[][] rate = rates(variants, rounds, blockMs);
    System.out.println("# shuffled epochs, samples/s per round (median [min, max]):");
    for (int v = 0; v < variants.size(); v++) {
      System.out.printf(Locale.ROOT, "#   %-20s %s%n", variants.get(v).name(), spread(column(rate, v), 1e6, "M"));
    }
    // The one-thread limit is whichever plain loop was faster over the rounds (by its median).
    int plain = index(variants, "limit-1");
    int touching = index(variants, "limit-1-touch");
    String oneThread = variants.get(median(column(rate, touching)) > median(column(rate, plain)) ? touching : plain).name();
    System.out.println("# ratios within a round (median [min, max] over " + rounds + " rounds):");
    ratio("adp / " + oneThread, rate, variants, "adp", oneThread, 0.9);
    ratio("generated / " + oneThread, rate, variants, "generated", oneThread, 0.9);
    ratio("readers2 / adp", rate, variants, "readers2", "adp", 1.8);
    ratio("generated-readers2 / generated", rate, variants, "generated-readers2", "generated", 0);
    ratio("readers2 / limit-2", rate, variants, "readers2", "limit-2", 0);
    ratio("limit-2 / limit-1", rate, variants, "limit-2", "limit-1", 0);
    ratio("limit-1-touch / limit-1", rate, variants, "limit-1-touch", "limit-1", 0);
    ratio("adp-prefetch / adp", rate, variants, "adp-prefetch", "adp", 1.0);
    second.shutdownNow();
    adp.close();
    readers2.close();
    prefetched.close();
    generated.close();
    generated2.close();
  }

  static ArrayDataProvider array(INDArray x, INDArray y, int readers) {
    return ArrayDataProvider.builder().data(x).label(y).batchSize(B).shuffle(true).seed(SEED)
        .lastBatch(LastBatch.PARTIAL).readers(readers).build();
  }

  static Mnist784Provider generated(List<Mnist784> rows, int readers) {
    return Mnist784Provider.builder().samples(rows).batchSize(B).shuffle(true).seed(SEED)
        .lastBatch(LastBatch.PARTIAL).readers(readers).build();
  }

  /**
   * The limit: a shuffled epoch as a plain loop, the permutation drawn as the engine draws it
   * (Fisher–Yates), each sample's feature and label rows copied with {@code Unsafe.copyMemory} into
   * preallocated off-heap batch buffers (two per thread, used in turn), then the same touch of the
   * batch's last row as the providers' consumers make.
   */
  static final class Gather {
    private final long srcX;
    private final long srcY;
    private final long[][] dstX = new long[2][2];
    private final long[][] dstY = new long[2][2];
    private final INDArray[] keep = new INDArray[10];
    private final int[] order = new int[N];
    private long epoch;

    Gather(INDArray x, INDArray y) {
      keep[0] = x;
      keep[1] = y;
      srcX = x.data().address();
      srcY = y.data().address();
      int k = 2;
      for (int t = 0; t < 2; t++) {
        for (int s = 0; s < 2; s++) {
          INDArray bx = Nd4j.create(DataType.FLOAT, B, F);
          INDArray by = Nd4j.create(DataType.FLOAT, B, C);
          keep[k++] = bx;
          keep[k++] = by;
          dstX[t][s] = bx.data().address();
          dstY[t][s] = by.data().address();
        }
      }
      for (int i = 0; i < N; i++) {
        order[i] = i;
      }
      // The same rows as a provider would copy: check one gathered batch against the source.
      draw();
      copy(0, 0, 0, B);
      float[] got = new float[B * F];
      new BytePointer(keep[2].data().addressPointer()).capacity((long) B * F * 4).asByteBuffer()
          .order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().get(got);
      for (int r = 0; r < B; r++) {
        for (int j = 0; j < F; j += 97) {
          if (got[r * F + j] != x.getFloat(order[r], j)) {
            throw new AssertionError("the limit copied the wrong row " + r);
          }
        }
      }
    }

    private void draw() {
      SplittableRandom random = new SplittableRandom(SEED * 31 + epoch++);
      for (int i = N - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }

    /** Copies the rows of batch {@code from / B} into thread {@code t}'s buffer {@code s}. */
    private void copy(int t, int s, int from, int rows) {
      try {
        RowCopies.unsafe(order, from, rows, srcX, srcY, dstX[t][s], dstY[t][s], F * 4, C * 4);
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }

    /** The batches {@code first, first + step, ...} of this epoch's order on thread {@code t}. */
    private long batches(int t, int first, int step) {
      long n = 0;
      int batches = (N + B - 1) / B;
      for (int b = first; b < batches; b += step) {
        int from = b * B;
        int rows = Math.min(B, N - from);
        int s = (b / step) & 1;
        copy(t, s, from, rows);
        sink += keep[2 + 4 * t + 2 * s].getFloat(rows - 1, F - 1) + keep[3 + 4 * t + 2 * s].getFloat(rows - 1, C - 1);
        n += rows;
      }
      return n;
    }

    /** One epoch on this thread, touching each next sample's rows while this one's are copied. */
    long epochTouching() {
      draw();
      long n = 0;
      int batches = (N + B - 1) / B;
      for (int b = 0; b < batches; b++) {
        int from = b * B;
        int rows = Math.min(B, N - from);
        int s = b & 1;
        try {
          RowCopies.unsafeTouching(order, from, rows, srcX, srcY, dstX[0][s], dstY[0][s], F * 4, C * 4);
        } catch (Throwable e) {
          throw new IllegalStateException(e);
        }
        sink += keep[2 + 2 * s].getFloat(rows - 1, F - 1) + keep[3 + 2 * s].getFloat(rows - 1, C - 1);
        n += rows;
      }
      return n;
    }

    /** One epoch of the plain loop on this thread. */
    long epoch() {
      draw();
      return batches(0, 0, 1);
    }

    /** One epoch on two threads: this one copies the even batches, {@code second}'s the odd ones. */
    long twoThreads(ExecutorService second) {
      draw();
      Future<Long> odd = second.submit(() -> batches(1, 1, 2));
      long n = batches(0, 0, 2);
      try {
        return n + odd.get();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  // ------------------------------------------------------------------ prefetch

  /** Burns {@code nanos} of this thread's CPU time (the shared bench's burn). */
  static long burn(long nanos) {
    long end = TMX.getCurrentThreadCpuTime() + nanos;
    long x = 0x9E3779B97F4A7C15L;
    do {
      for (int k = 0; k < 256; k++) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
      }
    } while (TMX.getCurrentThreadCpuTime() < end);
    return x;
  }

  static void sinkLong(long x) {
    if (x == 42) {
      sink += 1;
    }
  }

  /** 500 x 128 samples, burning the producer's 2 ms before every 128th. */
  static Iterable<Mnist784> burningRows() {
    Mnist784 row = new Mnist784(new float[F], new float[C]);
    return () -> new Iterator<>() {
      int i;

      @Override
      public boolean hasNext() {
        return i < PREFETCH_BATCHES * B;
      }

      @Override
      public Mnist784 next() {
        if (i % B == 0) {
          sinkLong(burn(BURN_NS));
        }
        i++;
        return row;
      }
    };
  }

  static void prefetch(int rounds) throws Exception {
    Mnist784Provider base = Mnist784Provider.builder().streaming(burningRows()).batchSize(B).build();
    PrefetchingProvider<Mnist784Batch> prefetching = PrefetchingProvider.of(
        Mnist784Provider.builder().streaming(burningRows()).batchSize(B).build());
    float[] template = new float[B * (F + C)];
    Reader<float[]> generate = Readers.generate(4, out -> {
      for (int k = 0; k < PREFETCH_BATCHES; k++) {
        sinkLong(burn(BURN_NS));
        out.emit(template.clone());
      }
    });
    ExecutorService side = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "two-threads");
      t.setDaemon(true);
      return t;
    });
    List<Variant> variants = List.of(
        new Variant("two-threads", () -> {
          Future<?> other = side.submit(() -> {
            for (int k = 0; k < PREFETCH_BATCHES; k++) {
              sinkLong(burn(BURN_NS));
            }
          });
          for (int k = 0; k < PREFETCH_BATCHES; k++) {
            sinkLong(burn(BURN_NS));
          }
          try {
            other.get();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          return (long) PREFETCH_BATCHES * B;
        }),
        new Variant("prefetching-provider", () -> consume(prefetching.iterator())),
        new Variant("generate", () -> {
          long n = 0;
          try (PipelineIterator<float[]> it = generate.iterator()) {
            while (it.hasNext()) {
              float[] b = it.next();
              sinkLong(burn(BURN_NS));
              sink += b[b.length - 1];
              n += B;
            }
          }
          return n;
        }),
        new Variant("serial", () -> consume(base.iterator())));
    double[][] rate = rates(variants, rounds, 0);
    System.out.println("# prefetch, 2 ms + 2 ms of thread CPU per batch, ms a batch per round (median [min, max]):");
    double[][] ms = new double[rounds][variants.size()];
    for (int r = 0; r < rounds; r++) {
      for (int v = 0; v < variants.size(); v++) {
        ms[r][v] = 1000.0 * B / rate[r][v];
      }
    }
    for (int v = 0; v < variants.size(); v++) {
      System.out.printf(Locale.ROOT, "#   %-20s %s%n", variants.get(v).name(), spread(column(ms, v), 1, " ms"));
    }
    System.out.println("# ratios (median [min, max] over " + rounds + " rounds):");
    double[] ideal = new double[rounds];
    Arrays.fill(ideal, 2.0);
    ratio("prefetching-provider / ideal 2 ms", column(ms, 1), ideal, 1.02, false);
    ratio("prefetching-provider / two-threads", column(ms, 1), column(ms, 0), 0, false);
    double[] floor = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      floor[r] = ms[r][3] - 2.0;
    }
    ratio("prefetching-provider / producer alone", column(ms, 1), floor, 0, false);
    ratio("generate / ideal 2 ms", column(ms, 2), ideal, 0, false);
    ratio("two-threads / ideal 2 ms", column(ms, 0), ideal, 0, false);
    side.shutdownNow();
    base.close();
    prefetching.close();
  }

  static long consume(BatchIterator<Mnist784Batch> batches) {
    long n = 0;
    try (BatchIterator<Mnist784Batch> it = batches) {
      while (it.hasNext()) {
        Mnist784Batch b = it.next();
        sinkLong(burn(BURN_NS));
        n += touch(b);
      }
    }
    return n;
  }

  // ------------------------------------------------------------------ rounds and ratios

  /**
   * Samples/s of every variant in every round: one warm-up round, then {@code rounds}, each running
   * a block of whole epochs of every variant (until {@code blockMs} have passed, at least one epoch)
   * in an order that rotates from round to round.
   */
  static double[][] rates(List<Variant> variants, int rounds, long blockMs) {
    int k = variants.size();
    double[][] rate = new double[rounds][k];
    for (int round = -1; round < rounds; round++) {
      for (int j = 0; j < k; j++) {
        int v = Math.floorMod(j + round, k);
        long t0 = System.nanoTime();
        long end = t0 + blockMs * 1_000_000L * (round < 0 ? 4 : 1);
        long samples = 0;
        long now;
        do {
          samples += variants.get(v).epoch().getAsLong();
          now = System.nanoTime();
        } while (now < end);
        if (round >= 0) {
          rate[round][v] = samples / ((now - t0) / 1e9);
        }
      }
      if (round >= 0) {
        StringBuilder line = new StringBuilder("# round " + round + ":");
        for (int v = 0; v < k; v++) {
          line.append(String.format(Locale.ROOT, " %s %.3g", variants.get(v).name(), rate[round][v]));
        }
        System.out.println(line);
      }
    }
    return rate;
  }

  static double[] column(double[][] m, int v) {
    double[] c = new double[m.length];
    for (int r = 0; r < m.length; r++) {
      c[r] = m[r][v];
    }
    return c;
  }

  static double median(double[] s) {
    double[] a = s.clone();
    Arrays.sort(a);
    int n = a.length;
    return n % 2 == 1 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
  }

  static String spread(double[] s, double unit, String suffix) {
    double[] a = s.clone();
    Arrays.sort(a);
    return String.format(Locale.ROOT, "%.3f%s [%.3f, %.3f]", median(a) / unit, suffix, a[0] / unit,
        a[a.length - 1] / unit);
  }

  static int index(List<Variant> variants, String name) {
    for (int v = 0; v < variants.size(); v++) {
      if (variants.get(v).name().equals(name)) {
        return v;
      }
    }
    throw new IllegalArgumentException(name);
  }

  /** The ratio of two variants' rates, at least {@code goal} (0: none). */
  static void ratio(String name, double[][] rate, List<Variant> variants, String num, String den, double goal) {
    ratio(name, column(rate, index(variants, num)), column(rate, index(variants, den)), goal, true);
  }

  /** Prints the median and range of {@code num[r] / den[r]} and whether the median meets the goal (0: none). */
  static void ratio(String name, double[] num, double[] den, double goal, boolean atLeast) {
    double[] q = new double[num.length];
    for (int r = 0; r < q.length; r++) {
      q[r] = num[r] / den[r];
    }
    String verdict = goal == 0 ? "" : String.format(Locale.ROOT, "  goal %s %.2f: %s", atLeast ? ">=" : "<=", goal,
        (atLeast ? median(q) >= goal : median(q) <= goal) ? "met" : "MISSED");
    System.out.printf(Locale.ROOT, "%-38s %s%s%n", name, spread(q, 1, "x"), verdict);
  }
}
