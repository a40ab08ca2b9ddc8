package dev.minibatch.benchmarks.io;

import dev.minibatch.runtime.NamedBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The image ratios measured pair by pair, for machines whose speed drifts: each round runs one
 * epoch of every variant (decode-only, decode + write, minibatch, each on 1 and 2 threads, and
 * DataVec) back to back, in
 * an order that rotates from round to round, and each ratio is taken within a round; the median
 * and range over the rounds are printed. JMH runs the variants one after another, minutes apart,
 * so a drift of the machine lands on one side of its ratios; here it lands on both.
 *
 * <p>Run: {@code mvn -B -ntp -pl benchmarks -am -DskipTests package} then {@code java -cp
 * "benchmarks/target/classes:$(cat /tmp/cp)" dev.minibatch.benchmarks.io.ImagePairs 10} with the
 * classpath from {@code mvn -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/tmp/cp}.
 */
public final class ImagePairs {
  private ImagePairs() {}

  /** One variant: an epoch of 2 048 images. */
  /** One timed epoch of a variant. */
  public interface Epoch {
    /** Runs the epoch. */
    void run() throws Exception;
  }

  /**
   * Images/s of every variant in every round: 2 warm-up rounds, then {@code rounds}, each running one
   * epoch of every variant in an order that rotates from round to round, so that no variant always
   * runs first (or right after the same other one); ratios are then taken within a round.
   */
  public static double[][] rates(List<? extends Epoch> epochs, int rounds, int images) throws Exception {
    int k = epochs.size();
    double[][] rate = new double[rounds][k];
    for (int round = -2; round < rounds; round++) {
      for (int j = 0; j < k; j++) {
        int v = Math.floorMod(j + round, k);
        long t0 = System.nanoTime();
        epochs.get(v).run();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (round >= 0) {
          rate[round][v] = images / seconds;
        }
      }
    }
    return rate;
  }

  /** Runs {@code args[0]} rounds (default 10) after two warm-up rounds and prints the ratios. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    ImageBenchmark.Images images = new ImageBenchmark.Images();
    images.setUp();
    ImageBenchmark bench = new ImageBenchmark();
    ImageBenchmark.Cpu cpu = new ImageBenchmark.Cpu();
    List<String> names = new ArrayList<>();
    List<Epoch> epochs = new ArrayList<>();
    List<AutoCloseable> closers = new ArrayList<>();
    for (int n = 1; n <= 2; n++) {
      ImageBenchmark.Threads t = new ImageBenchmark.Threads();
      t.threads = n;
      ImageBenchmark.Encoded e = new ImageBenchmark.Encoded();
      e.setUp(images, t);
      ImageBenchmark.Minibatch m = new ImageBenchmark.Minibatch();
      m.setUp(images, t);
      ImageBenchmark.Rings r = new ImageBenchmark.Rings();
      r.setUp(t);
      closers.add(e::tearDown);
      closers.add(m::tearDown);
      closers.add(r::tearDown);
      names.add("decode-only " + n);
      epochs.add(() -> bench.decodeOnly(e, t, cpu));
      names.add("decode+write " + n);
      epochs.add(() -> bench.decodeAndWrite(e, t, cpu, r));
      names.add("minibatch " + n);
      epochs.add(() -> {
        long rows = 0;
        for (NamedBatch b : m.provider) {
          rows += b.countSamples();
        }
        if (rows != ImageBenchmark.IMAGES) {
          throw new IllegalStateException("an epoch delivered " + rows + " images");
        }
      });
    }
    // uint8 output (ImageRecordUInt8Iter): the same crop and mirror, a quarter of the bytes, no mean/std.
    dev.minibatch.runtime.io.image.ImageRecordProvider bytes = dev.minibatch.runtime.io.image.ImageRecordProvider
        .builder().pathImgrec(images.rec).pathImgidx(images.idx).dataShape(3, ImageBenchmark.CROP, ImageBenchmark.CROP)
        .batchSize(ImageBenchmark.BATCH).shuffle(true).seed(ImageBenchmark.SEED)
        .augment(a -> a.randCrop(true).randMirror(true))
        .dtype(dev.minibatch.DType.UINT8).preprocessThreads(1).build();
    closers.add(bytes::close);
    names.add("minibatch uint8 1");
    epochs.add(() -> {
      long rows = 0;
      for (NamedBatch b : bytes) {
        rows += b.countSamples();
      }
      if (rows != ImageBenchmark.IMAGES) {
        throw new IllegalStateException("an epoch delivered " + rows + " images");
      }
    });
    ImageBenchmark.DataVec dataVec = new ImageBenchmark.DataVec();
    dataVec.setUp(images);
    names.add("DataVec");
    epochs.add(() -> {
      long rows = 0;
      dataVec.iterator.reset();
      while (dataVec.iterator.hasNext()) {
        rows += dataVec.iterator.next().getFeatures().size(0);
      }
      if (rows != ImageBenchmark.IMAGES) {
        throw new IllegalStateException("a DataVec epoch delivered " + rows + " images");
      }
    });
    int k = epochs.size();
    double[][] rate = rates(epochs, rounds, ImageBenchmark.IMAGES);
    for (AutoCloseable c : closers) {
      c.close();
    }
    System.out.println("images/s, median (min-max) over " + rounds + " rounds:");
    for (int v = 0; v < k; v++) {
      int vv = v;
      print(names.get(v), column(rate, r -> r[vv]));
    }
    System.out.println("ratios within each round, median (min-max):");
    print("minibatch / decode-only, 1 thread", column(rate, r -> r[2] / r[0]));
    print("minibatch / decode-only, 2 threads", column(rate, r -> r[5] / r[3]));
    print("minibatch / decode+write, 1 thread", column(rate, r -> r[2] / r[1]));
    print("minibatch / decode+write, 2 threads", column(rate, r -> r[5] / r[4]));
    print("decode-only 1 -> 2 threads", column(rate, r -> r[3] / r[0]));
    print("minibatch 1 -> 2 threads", column(rate, r -> r[5] / r[2]));
    print("minibatch uint8 / decode-only, 1 thread", column(rate, r -> r[6] / r[0]));
    print("minibatch 1 thread / DataVec", column(rate, r -> r[2] / r[7]));
    print("minibatch 2 threads / DataVec", column(rate, r -> r[5] / r[7]));
    System.exit(0);
  }

  /** {@code f} of every round's rates, sorted (shared with the runtime package's pair runs). */
  public static double[] column(double[][] rate, java.util.function.ToDoubleFunction<double[]> f) {
    double[] out = new double[rate.length];
    for (int i = 0; i < rate.length; i++) {
      out[i] = f.applyAsDouble(rate[i]);
    }
    Arrays.sort(out);
    return out;
  }

  /** Prints the median and range of {@code sorted}, named. */
  public static void print(String name, double[] sorted) {
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    String format = "  %-" + Math.max(38, name.length()) + "s %9.3f  (%.3f-%.3f)%n";
    System.out.printf(Locale.ROOT, format, name, median, sorted[0], sorted[n - 1]);
  }
}
