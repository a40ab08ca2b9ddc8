package dev.minibatch.shards.bench;

import dev.minibatch.runtime.NamedBatch;
import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;

/** What the shard benchmarks share: one timed epoch, and the median and range of paired ratios. */
final class Epochs {
  private Epochs() {}

  /** One epoch's samples per second; reads one value of every batch so the work cannot be skipped. */
  static double samplesPerSecond(Iterable<NamedBatch> p) {
    return samplesPerSecond(p, 1);
  }

  /** As {@link #samplesPerSecond(Iterable)}, over {@code epochs} epochs in a row (a longer, steadier time). */
  static double samplesPerSecond(Iterable<NamedBatch> p, int epochs) {
    long t = System.nanoTime();
    double sum = 0;
    long n = 0;
    for (int e = 0; e < epochs; e++) {
      for (NamedBatch b : p) {
        INDArray a = b.data().get(0);
        long[] last = new long[a.rank()];
        last[0] = b.rows() - 1;
        sum += a.getDouble(last);
        n += b.rows();
      }
    }
    double s = n / ((System.nanoTime() - t) / 1e9);
    if (sum == 42.4242) {
      System.out.println(sum);
    }
    return s;
  }

  /**
   * Round {@code round}: one epoch of each provider, in the given order on even rounds and in the
   * reverse order on odd ones (so none always runs first); samples per second, in the given order.
   */
  @SafeVarargs
  static double[] round(int round, Iterable<NamedBatch>... providers) {
    java.util.function.DoubleSupplier[] runs = new java.util.function.DoubleSupplier[providers.length];
    for (int j = 0; j < providers.length; j++) {
      Iterable<NamedBatch> p = providers[j];
      runs[j] = () -> samplesPerSecond(p);
    }
    return round(round, runs);
  }

  /** As {@link #round(int, Iterable[])}, of timed runs that each return their samples per second. */
  static double[] round(int round, java.util.function.DoubleSupplier... runs) {
    double[] rates = new double[runs.length];
    for (int j = 0; j < runs.length; j++) {
      int v = round % 2 == 0 ? j : runs.length - 1 - j;
      rates[v] = runs[v].getAsDouble();
    }
    return rates;
  }

  /** "median m (min-max)" of {@code v}. */
  static String summary(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    return String.format("median %.3f (%.3f-%.3f)", median, s[0], s[s.length - 1]);
  }
}
