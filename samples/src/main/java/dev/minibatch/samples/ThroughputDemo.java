package dev.minibatch.samples;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The samples module's main job: builds 60 000 random digits, then reads a few shuffled epochs of
 * batches through the generated {@link DigitProvider} and prints samples per second.
 * {@code mvn -B -ntp -pl samples -am -DskipTests package exec:exec [-Dmain.args="epochs"]}
 */
public final class ThroughputDemo {
  private ThroughputDemo() {}

  /** Runs the demo; the optional argument is the number of epochs (default 3). */
  public static void main(String[] args) {
    int epochs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    Random rnd = new Random(1);
    List<Digit> digits = new ArrayList<>();
    for (int i = 0; i < 60_000; i++) {
      float[][] img = new float[Digit.SIDE][Digit.SIDE];
      for (float[] row : img) {
        for (int c = 0; c < row.length; c++) {
          row[c] = rnd.nextFloat();
        }
      }
      digits.add(new Digit(img, i % 10));
    }
    try (DigitProvider provider = DigitProvider.create(b -> b.samples(digits).shuffle(true).seed(42))) {
      System.out.println("provideData " + provider.provideData() + ", provideLabel " + provider.provideLabel());
      for (int e = 0; e < epochs; e++) {
        long t0 = System.nanoTime();
        long n = 0;
        double checksum = 0;
        for (DigitBatch batch : provider) {
          n += batch.countSamples();
          checksum += batch.getLabel().getDouble(0);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("epoch %d: %d samples in %.3f s, %.0f samples/s (checksum %.0f)%n", e, n, s, n / s, checksum);
      }
    }
  }
}
