package dev.minibatch.samples;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.ArrayDataProvider;
import dev.minibatch.runtime.NamedBatch;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Builds an {@link ArrayDataProvider} over generated MNIST-sized data (60000 × 784 float32, 10-class
 * one-hot labels) and prints how many batches and samples per second it delivers, in order and
 * shuffled. Arguments: {@code [epochs] [batchSize]}.
 */
public final class ThroughputDemo {
  private ThroughputDemo() {}

  /** Runs the demo. */
  public static void main(String[] args) {
    int epochs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int batchSize = args.length > 1 ? Integer.parseInt(args[1]) : 128;
    int n = 60_000;
    INDArray x = Nd4j.rand(DataType.FLOAT, n, 784);
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 10);
    for (int i = 0; i < n; i++) {
      y.putScalar(i, i % 10, 1f);
    }
    for (boolean shuffle : new boolean[] {false, true}) {
      try (ArrayDataProvider p = ArrayDataProvider.builder().data(x).label(y)
          .batchSize(batchSize).shuffle(shuffle).seed(42).lastBatch(LastBatch.PAD_WRAP).build()) {
        for (int e = 0; e < epochs; e++) {
          long t0 = System.nanoTime();
          int batches = 0;
          long samples = 0;
          double checksum = 0;
          for (NamedBatch b : p) {
            batches++;
            samples += b.countSamples();
            checksum += b.label().get(0).getFloat(0, 0);
          }
          double s = (System.nanoTime() - t0) / 1e9;
          System.out.printf("%s epoch %d: %d batches, %d samples in %.3f s = %.0f batches/s, %.2fM samples/s (checksum %.0f)%n",
              shuffle ? "shuffled" : "in order", e + 1, batches, samples, s, batches / s, samples / s / 1e6, checksum);
        }
      }
    }
  }
}
