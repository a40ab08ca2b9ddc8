package dev.minibatch.benchmarks.io;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.csv.CsvProvider;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.pipeline.LiveVerdict;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.Tuning;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Issue 46's autotuning figure: a provider built with {@code autotune()} against the best setting
 * a hand sweep of {@code readers(n)} and {@code prefetchBuffer(n)} finds, in the same run, on three
 * workloads. First each autotuned provider runs epochs until its tuner settles (the time it took
 * must be within 30 s); then rounds run one block of every variant of a workload, in an order that
 * rotates from round to round ({@link ImagePairs#rates}), and the ratio of the autotuned rate to the
 * best hand setting's (the variant with the best median) is taken within each round.
 *
 * <p>Workloads: {@code array} ({@code ArrayDataProvider}, 60 000 x 784 float32 and a 10-wide label,
 * batches of 128, shuffled, 4 epochs a block), {@code csv} ({@code CsvProvider} over a generated
 * file of 20 000 rows of 784 short decimals and a label, batches of 128, shuffled, 8 epochs a block)
 * and {@code image} (the {@link ImageBenchmark} record file, 2 048 JPEGs, 224 x 224 random crop,
 * mirror, mean/std, batches of 32, one epoch a block). The sweep: {@code readers} 0 to 3 (1 to 4
 * for images, which always decode on readers) with the default prefetch buffer, and the best two
 * reader counts again with {@code prefetchBuffer(8)}.
 *
 * <p>Run (docs/performance.md#autotuning): {@code mvn -B -ntp -pl benchmarks -am -DskipTests
 * package}, {@code mvn -B -ntp -q -pl benchmarks dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp}, then {@code OMP_NUM_THREADS=1 java -Xmx6g -cp
 * "benchmarks/target/classes:runtime/target/classes:api/target/classes:$(cat /tmp/cp)"
 * dev.minibatch.benchmarks.io.AutotunePairs 8}.
 */
public final class AutotunePairs {
  static final int N = TracePairs.N;
  static final int F = TracePairs.F;
  static final int C = TracePairs.C;
  static final int B = 128;
  static final int CSV_ROWS = 20_000;

  private AutotunePairs() {}

  /** One workload: how to build a provider over it with extra settings, and its block. */
  record Workload(String name, Function<Consumer<ProviderBuilder<?>>, BatchProvider<? extends Batch>> build, int epochs,
      long samples, int[] readers) {}

  /** {@code b} with {@code extra} applied. */
  static <B extends ProviderBuilder<?>> B with(B b, Consumer<ProviderBuilder<?>> extra) {
    extra.accept(b);
    return b;
  }

  static ImagePairs.Epoch block(BatchProvider<? extends Batch> p, int epochs, long samples) {
    return () -> {
      for (int e = 0; e < epochs; e++) {
        long n = TracePairs.drain(p);
        if (n != samples) {
          throw new IllegalStateException("an epoch delivered " + n + " samples, not " + samples);
        }
      }
    };
  }

  /** Epochs of {@code p} until its tuner settles; the seconds it took and what it chose. */
  static Tuning settle(String name, BatchProvider<? extends Batch> p, long samples) {
    long t0 = System.nanoTime();
    while (true) {
      PipelineStats stats;
      long n = 0;
      try (BatchIterator<? extends Batch> it = p.iterator()) {
        while (it.hasNext()) {
          Batch b = it.next();
          n += b.countSamples();
        }
        stats = PipelineStats.of(it);
      }
      if (n != samples) {
        throw new IllegalStateException("an epoch delivered " + n + " samples, not " + samples);
      }
      Tuning t = stats.tuning().get(0);
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (t.settled() || seconds > 120) {
        System.out.printf(Locale.ROOT, "  %-6s %s after %.1f s%n", name, t, seconds);
        return t;
      }
    }
  }

  static Path csvFile() throws Exception {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "minibatch-autotune-csv-v1");
    Path file = dir.resolve("data.csv");
    if (Files.exists(dir.resolve("complete"))) {
      return file;
    }
    Files.createDirectories(dir);
    SplittableRandom rnd = new SplittableRandom(1);
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      StringBuilder sb = new StringBuilder(8192);
      for (int r = 0; r < CSV_ROWS; r++) {
        sb.setLength(0);
        for (int c = 0; c < F; c++) {
          int v = rnd.nextInt(1000);
          sb.append(v == 0 ? "0" : "0." + v).append(',');
        }
        sb.append(r % C).append('\n');
        w.write(sb.toString());
      }
    }
    Files.writeString(dir.resolve("complete"), CSV_ROWS + " rows\n");
    return file;
  }

  /** Runs {@code args[0]} rounds (default 8) after two warm-up rounds and prints the ratios. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    LiveVerdict.off();
    System.out.printf(Locale.ROOT, "# %d cores, %s%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.version"));
    INDArray[] xy = TracePairs.arrays();
    INDArray x = xy[0];
    INDArray y = xy[1];
    Path csv = csvFile();
    ImageBenchmark.Images images = new ImageBenchmark.Images();
    images.setUp();
    List<Workload> workloads = List.of(
        new Workload("array", s -> with(ArrayDataProvider.builder().data(x).label(y).batchSize(B).shuffle(true)
            .seed(1234).lastBatch(LastBatch.PARTIAL), s).build(), 4, N, new int[] {0, 1, 2, 3}),
        new Workload("csv", s -> with(CsvProvider.builder().dataFile(csv).format(f -> f.labelColumn(F))
            .dataShape(F).batchSize(B).shuffle(true).seed(1234), s).build(), 8, CSV_ROWS, new int[] {0, 1, 2, 3}),
        new Workload("image", s -> with(ImageRecordProvider.builder().pathImgrec(images.rec)
            .pathImgidx(images.idx).dataShape(3, ImageBenchmark.CROP, ImageBenchmark.CROP)
            .batchSize(ImageBenchmark.BATCH).shuffle(true).seed(ImageBenchmark.SEED)
            .augment(a -> a.randCrop(true).randMirror(true))
            .normalize(n -> n.meanRgb(ImageBenchmark.MEAN[0], ImageBenchmark.MEAN[1], ImageBenchmark.MEAN[2])
                .stdRgb(ImageBenchmark.STD[0], ImageBenchmark.STD[1], ImageBenchmark.STD[2])), s).build(),
            1, ImageBenchmark.IMAGES, new int[] {1, 2, 3, 4}));
    System.out.println("autotuned, until settled (from a fresh provider, the JVM's warm-up included):");
    for (Workload w : workloads) {
      List<AutoCloseable> closers = new ArrayList<>();
      List<String> names = new ArrayList<>();
      List<ImagePairs.Epoch> blocks = new ArrayList<>();
      BatchProvider<? extends Batch> tuned = w.build().apply(b -> b.autotune());
      closers.add(tuned);
      Tuning t = settle(w.name(), tuned, w.samples());
      for (int r : w.readers()) {
        BatchProvider<? extends Batch> p = w.build().apply(b -> b.readers(r));
        closers.add(p);
        names.add("readers(" + r + ")");
        blocks.add(block(p, w.epochs(), w.samples()));
      }
      int[] deep = w.readers()[0] == 0 ? new int[] {1, 2} : new int[] {2, 3};
      for (int r : deep) {
        BatchProvider<? extends Batch> p = w.build().apply(b -> b.readers(r).prefetchBuffer(8));
        closers.add(p);
        names.add("readers(" + r + ").prefetchBuffer(8)");
        blocks.add(block(p, w.epochs(), w.samples()));
      }
      names.add("autotune() -> " + t.readers() + "/" + t.prefetchBuffer());
      blocks.add(block(tuned, w.epochs(), w.samples()));
      double[][] rate = ImagePairs.rates(blocks, rounds, (int) (w.samples() * w.epochs()));
      for (AutoCloseable c : closers) {
        c.close();
      }
      System.out.printf(Locale.ROOT, "%s: samples/s, median (min-max) over %d rounds:%n", w.name(), rounds);
      int best = 0;
      double bestMedian = 0;
      int tunedAt = names.size() - 1;
      for (int v = 0; v < names.size(); v++) {
        int vv = v;
        double[] col = ImagePairs.column(rate, r -> r[vv]);
        ImagePairs.print(names.get(v), col);
        double median = col[col.length / 2];
        if (v != tunedAt && median > bestMedian) {
          bestMedian = median;
          best = v;
        }
      }
      int b = best;
      ImagePairs.print(w.name() + ": autotune / " + names.get(b), ImagePairs.column(rate, r -> r[tunedAt] / r[b]));
      if (t.bufferBytes() > t.memoryBytes()) {
        throw new IllegalStateException("over the memory budget: " + t);
      }
    }
    System.exit(0);
  }
}
