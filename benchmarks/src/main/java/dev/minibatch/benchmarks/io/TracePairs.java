package dev.minibatch.benchmarks.io;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.trace.PipelineTrace;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What a {@link PipelineTrace} costs, measured pair by pair as {@link ImagePairs} does (every round
 * runs every variant back to back, in an order that rotates from round to round; each ratio is
 * taken within a round; median and range over the rounds after two warm-up rounds).
 *
 * <p>Three workloads: {@code array} ({@code ArrayDataProvider}, 60 000 samples of 784 float32
 * features and a 10-wide float32 label, batches of 128, shuffled, {@code PARTIAL}: the in-memory
 * workload of {@code engine.InMemoryPairs}, on the consumer's thread; a block of 4 epochs per
 * variant), {@code array-readers2} (the same with {@code readers(2)}) and {@code image} (the
 * {@link ImageBenchmark} record file, 2 048 JPEGs of 256 x 256 cropped to 224 x 224, mirrored,
 * normalised, batches of 32, {@code preprocessThreads(2)}; one epoch per variant). Each workload
 * runs three variants: {@code off} (no trace), {@code off'} (the same again: the ratio {@code off' /
 * off} is the noise of a same-run ratio) and {@code on} (a trace recording through the block, then
 * stopped and dropped unwritten: the cost of recording, not of writing the file).
 *
 * <p>Run (docs/performance.md#tracing): {@code mvn -B -ntp -pl benchmarks -am -DskipTests package},
 * {@code mvn -B -ntp -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/tmp/cp}, then
 * {@code OMP_NUM_THREADS=1 java -Xmx6g -cp
 * "benchmarks/target/classes:runtime/target/classes:api/target/classes:$(cat /tmp/cp)"
 * dev.minibatch.benchmarks.io.TracePairs 10}.
 */
public final class TracePairs {
  static final int N = 60_000;
  static final int F = 784;
  static final int C = 10;
  static final int B = 128;
  static final int ARRAY_EPOCHS = 4;
  static final int ADDS = 20_000_000;
  static final int SEGMENT = 100_000;
  /** Per workload: events recorded and batches delivered by its traced blocks. */
  static final java.util.Map<String, long[]> EVENTS = new java.util.TreeMap<>();
  /**
   * {@code -DoffOnly=true}: only the untraced variants, never touching {@link PipelineTrace}, so
   * the same class also runs against a runtime from before tracing existed (alternating fresh JVMs,
   * before/after).
   */
  static final boolean OFF_ONLY = Boolean.getBoolean("offOnly");
  /** Where touches go, so no epoch is optimised away. */
  static volatile double sink;

  private TracePairs() {}

  /** Samples delivered by one epoch, each batch touched; the iterator closed. */
  static long drain(BatchProvider<? extends Batch> p) {
    long n = 0;
    try (BatchIterator<? extends Batch> it = p.iterator()) {
      while (it.hasNext()) {
        Batch b = it.next();
        long rows = b.countSamples();
        sink += b.data().get(0).getFloat(rows - 1, 0);
        n += rows;
      }
    }
    return n;
  }

  /** An epoch block of {@code p} ({@code epochs} epochs of {@code samples}), traced or not. */
  static ImagePairs.Epoch block(String workload, BatchProvider<? extends Batch> p, int epochs, long samples,
      boolean traced) {
    return () -> {
      PipelineTrace trace = traced ? PipelineTrace.start() : null;
      try {
        for (int e = 0; e < epochs; e++) {
          long n = drain(p);
          if (n != samples) {
            throw new IllegalStateException("an epoch delivered " + n + " samples, not " + samples);
          }
        }
      } finally {
        if (trace != null) {
          trace.stop();
          if (trace.droppedEvents() > 0) {
            throw new IllegalStateException("the trace dropped " + trace.droppedEvents() + " events");
          }
          long[] counts = EVENTS.computeIfAbsent(workload, w -> new long[2]);
          counts[0] += trace.events();
          counts[1] += epochs * ((samples + p.batchSize() - 1) / p.batchSize());
        }
      }
    };
  }

  /**
   * The one thing tracing adds to an untraced pipeline, timed alone in the same rounds: the engine's
   * per-call counter update ({@code StageCounters.addCall}: an item, busy and consumer-wait time,
   * then the read of the trace switch) against the same three {@code LongAdder} adds written out
   * without the switch, {@value #ADDS} calls per variant per round, in rotating order.
   */
  static void addCost(int rounds) {
    StageCounters counters = new StageCounters("cost", 1, 1, () -> 0);
    LongAdder items = new LongAdder();
    LongAdder busy = new LongAdder();
    LongAdder wait = new LongAdder();
    Runnable withSwitch = () -> {
      for (int i = 0; i < ADDS; i++) {
        counters.addCall(i, i & 1023, i);
      }
    };
    Runnable traced = () -> {
      // Fresh traces of SEGMENT events each (no event dropped), their start, growth and stop timed too.
      for (int k = 0; k < ADDS; k += SEGMENT) {
        PipelineTrace trace = PipelineTrace.start(SEGMENT);
        for (int i = k; i < k + SEGMENT; i++) {
          counters.addCall(i, i & 1023, i);
        }
        trace.stop();
        sink += trace.droppedEvents();
      }
    };
    Runnable without = () -> {
      for (int i = 0; i < ADDS; i++) {
        items.increment();
        busy.add(i & 1023);
        wait.add(i & 1023);
      }
    };
    double[][] ns = new double[rounds][3];
    List<Runnable> variants = List.of(without, withSwitch, traced);
    for (int round = -2; round < rounds; round++) {
      for (int j = 0; j < 3; j++) {
        int v = Math.floorMod(j + round, 3);
        long t0 = System.nanoTime();
        variants.get(v).run();
        if (round >= 0) {
          ns[round][v] = (System.nanoTime() - t0) / (double) ADDS;
        }
      }
    }
    sink += counters.snapshot().busyNanos() + busy.sum() + items.sum() + wait.sum();
    System.out.println("counter update per call, ns, median (min-max) over " + rounds + " rounds:");
    ImagePairs.print("three LongAdder adds", ImagePairs.column(ns, r -> r[0]));
    ImagePairs.print("StageCounters.addCall, no trace", ImagePairs.column(ns, r -> r[1]));
    ImagePairs.print("StageCounters.addCall, tracing", ImagePairs.column(ns, r -> r[2]));
    ImagePairs.print("no trace - LongAdders (the switch)", ImagePairs.column(ns, r -> r[1] - r[0]));
    ImagePairs.print("tracing - no trace (one event)", ImagePairs.column(ns, r -> r[2] - r[1]));
  }

  /**
   * The array workload's data: {@value #N} samples of {@value #F} float32 features (a fixed pattern
   * in [0, 1]) and a {@value #C}-wide one-hot float32 label; also {@link AutotunePairs}'.
   */
  static INDArray[] arrays() {
    float[] fx = new float[N * F];
    float[] fy = new float[N * C];
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < F; j++) {
        fx[i * F + j] = ((i * 31 + j * 17) % 256) / 255f;
      }
      fy[i * C + (i * 7 + 3) % 10] = 1f;
    }
    INDArray x = Nd4j.create(fx, new long[] {N, F}, 'c');
    INDArray y = Nd4j.create(fy, new long[] {N, C}, 'c');
    return new INDArray[] {x, y};
  }

  /** Runs {@code args[0]} rounds (default 10) after two warm-up rounds and prints the ratios. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    // The workloads are input-bound on purpose: the live verdict's lines would only interleave.
    dev.minibatch.runtime.pipeline.LiveVerdict.off();
    System.out.printf(Locale.ROOT, "# %d cores, %s%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.version"));
    INDArray[] xy = arrays();
    INDArray x = xy[0];
    INDArray y = xy[1];
    ImageBenchmark.Images images = new ImageBenchmark.Images();
    images.setUp();
    List<AutoCloseable> closers = new ArrayList<>();
    List<String> workloads = List.of("array", "array-readers2", "image");
    List<String> names = new ArrayList<>();
    List<ImagePairs.Epoch> epochs = new ArrayList<>();
    for (String w : workloads) {
      BatchProvider<? extends Batch> p;
      int blocks;
      long samples;
      if (w.startsWith("array")) {
        p = ArrayDataProvider.builder().data(x).label(y).batchSize(B).shuffle(true).seed(1234)
            .lastBatch(LastBatch.PARTIAL).readers(w.equals("array") ? 0 : 2).build();
        blocks = ARRAY_EPOCHS;
        samples = N;
      } else {
        p = ImageRecordProvider.builder().pathImgrec(images.rec).pathImgidx(images.idx)
            .dataShape(3, ImageBenchmark.CROP, ImageBenchmark.CROP).batchSize(ImageBenchmark.BATCH).shuffle(true)
            .seed(ImageBenchmark.SEED).augment(a -> a.randCrop(true).randMirror(true))
            .normalize(n -> n.meanRgb(ImageBenchmark.MEAN[0], ImageBenchmark.MEAN[1], ImageBenchmark.MEAN[2])
                .stdRgb(ImageBenchmark.STD[0], ImageBenchmark.STD[1], ImageBenchmark.STD[2]))
            .preprocessThreads(2).build();
        blocks = 1;
        samples = ImageBenchmark.IMAGES;
      }
      closers.add(p);
      names.add(w + " off");
      epochs.add(block(w, p, blocks, samples, false));
      names.add(w + " off'");
      epochs.add(block(w, p, blocks, samples, false));
      if (!OFF_ONLY) {
        names.add(w + " on");
        epochs.add(block(w, p, blocks, samples, true));
      }
    }
    if (!OFF_ONLY) {
      addCost(rounds);
    }
    // Rates per variant in "blocks per second" (ImagePairs.rates divides 1 by each block's time).
    double[][] rate = ImagePairs.rates(epochs, rounds, 1);
    for (AutoCloseable c : closers) {
      c.close();
    }
    System.out.println("blocks/s, median (min-max) over " + rounds + " rounds:");
    for (int v = 0; v < names.size(); v++) {
      int vv = v;
      ImagePairs.print(names.get(v), ImagePairs.column(rate, r -> r[vv]));
    }
    System.out.println("time ratios within each round (above 1: slower than off), median (min-max):");
    for (int w = 0; w < workloads.size() && !OFF_ONLY; w++) {
      int off = 3 * w;
      ImagePairs.print(workloads.get(w) + ": off' / off (noise)", ImagePairs.column(rate, r -> r[off] / r[off + 1]));
      ImagePairs.print(workloads.get(w) + ": on / off", ImagePairs.column(rate, r -> r[off] / r[off + 2]));
      ImagePairs.print(workloads.get(w) + ": on / off'", ImagePairs.column(rate, r -> r[off + 1] / r[off + 2]));
    }
    for (var e : EVENTS.entrySet()) {
      System.out.printf(Locale.ROOT, "  %s: %.2f events per batch traced%n", e.getKey(),
          e.getValue()[0] / (double) e.getValue()[1]);
    }
    System.err.println("# sink " + sink);
    System.exit(0);
  }
}
