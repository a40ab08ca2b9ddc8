package dev.minibatch.samples.mnist;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The main job's settings.
 *
 * @param epochs passes over the training digits
 * @param batchSize digits per batch
 * @param workers threads that prepare batches ahead of training: 0 (on the training thread) or 1
 * @param seed seeds the shuffle and the weight initialisation
 * @param mnistDir a directory with the full MNIST idx files, or null for the bundled digits
 * @param trainLimit use at most this many training digits (for short runs)
 */
public record TrainOptions(int epochs, int batchSize, int workers, long seed, @Nullable Path mnistDir, int trainLimit) {
  /** The defaults: 15 epochs of 64, one worker, seed 42, bundled digits, all of them. */
  public static TrainOptions defaults() {
    return new TrainOptions(15, 64, 1, 42, null, Integer.MAX_VALUE);
  }

  /**
   * Reads {@code --epochs N --batch N --workers N --seed N --mnist-dir DIR --train-limit N}.
   *
   * @throws IllegalArgumentException for an unknown option or a missing or bad value
   */
  public static TrainOptions parse(String... args) {
    TrainOptions o = defaults();
    for (int i = 0; i < args.length; i++) {
      String key = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + key + " needs a value");
      }
      String v = args[++i];
      switch (key) {
        case "--epochs":
          o = new TrainOptions(positive(key, v), o.batchSize, o.workers, o.seed, o.mnistDir, o.trainLimit);
          break;
        case "--batch":
          o = new TrainOptions(o.epochs, positive(key, v), o.workers, o.seed, o.mnistDir, o.trainLimit);
          break;
        case "--workers":
          o = new TrainOptions(o.epochs, o.batchSize, Integer.parseInt(v), o.seed, o.mnistDir, o.trainLimit);
          break;
        case "--seed":
          o = new TrainOptions(o.epochs, o.batchSize, o.workers, Long.parseLong(v), o.mnistDir, o.trainLimit);
          break;
        case "--mnist-dir":
          o = new TrainOptions(o.epochs, o.batchSize, o.workers, o.seed, Path.of(v), o.trainLimit);
          break;
        case "--train-limit":
          o = new TrainOptions(o.epochs, o.batchSize, o.workers, o.seed, o.mnistDir, positive(key, v));
          break;
        default:
          throw new IllegalArgumentException("unknown option " + key
              + "; options: --epochs N --batch N --workers N --seed N --mnist-dir DIR --train-limit N");
      }
    }
    if (o.workers < 0 || o.workers > 1) {
      throw new IllegalArgumentException("--workers must be 0 (batches made on the training thread) or 1 (the next batch made "
          + "in the background while the network trains), got " + o.workers + "; one collate thread keeps well ahead of this network");
    }
    return o;
  }

  private static int positive(String key, String v) {
    int n = Integer.parseInt(v);
    if (n <= 0) {
      throw new IllegalArgumentException(key + " must be > 0, got " + v);
    }
    return n;
  }
}
