package dev.minibatch.samples.mnist;

import java.util.List;

/**
 * The main job: trains a one-hidden-layer network on MNIST digits and prints, per epoch, samples per
 * second, the mean loss and the held-out accuracy.
 *
 * <pre>
 * mvn -B -ntp -pl samples -am -DskipTests package exec:exec
 * mvn -B -ntp -pl samples -am -DskipTests package exec:exec -Dmain.args="--epochs 5 --batch 128 --mnist-dir /data/mnist"
 * </pre>
 */
public final class TrainMnist {
  private TrainMnist() {}

  /** Runs the job; see {@link TrainOptions#parse} for the arguments. */
  public static void main(String[] args) {
    TrainOptions options = TrainOptions.parse(args);
    long t0 = System.nanoTime();
    MnistData data = (options.mnistDir() == null ? MnistData.bundled() : MnistData.fromDirectory(options.mnistDir()))
        .limitTrain(options.trainLimit());
    System.out.printf("MNIST: %d training digits, %d held out (%s); loaded in %.2f s%n", data.train().size(),
        data.test().size(), options.mnistDir() == null ? "bundled t10k split 8000/2000" : options.mnistDir(),
        (System.nanoTime() - t0) / 1e9);
    int left = data.train().size() % options.batchSize();
    if (left > 0) {
      // The training provider drops the incomplete last batch (LastBatch.DISCARD); say so up front.
      System.out.printf("each epoch trains on full batches of %d only: %d digits (a different %d each "
          + "epoch, as the order is reshuffled) fill no batch and are left out%n", options.batchSize(), left, left);
    }
    System.out.printf("MLP 784-256-10, Adam 1e-3, batch %d, %d epochs, seed %d, %d loader worker(s)%n",
        options.batchSize(), options.epochs(), options.seed(), options.workers());
    List<MnistTrainer.EpochReport> reports = MnistTrainer.train(data, options, r -> System.out.printf(
        "epoch %2d: %6d samples in %5.2f s (%7.0f samples/s); held out: loss %.4f, accuracy %.2f%%%n",
        r.epoch(), r.samples(), r.seconds(), r.samplesPerSecond(), r.loss(), 100 * r.heldOutAccuracy()));
    MnistTrainer.EpochReport last = reports.get(reports.size() - 1);
    long trained = reports.stream().mapToLong(MnistTrainer.EpochReport::samples).sum();
    System.out.printf("held-out accuracy after %d epochs: %.2f%% (%d digits); trained on %d samples; total %.1f s%n",
        last.epoch(), 100 * last.heldOutAccuracy(), data.test().size(), trained, (System.nanoTime() - t0) / 1e9);
  }
}
