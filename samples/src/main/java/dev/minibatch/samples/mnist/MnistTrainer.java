package dev.minibatch.samples.mnist;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.engine.PrefetchingProvider;
import dev.minibatch.runtime.interop.ProviderIterators;
import dev.minibatch.samples.CountingProvider;
import dev.minibatch.runtime.interop.SameDiffBinding;
import dev.minibatch.samples.SameDiffGradients;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Trains {@link MnistMlp} from providers generated for {@link MnistDigit}: shuffled training
 * batches (a new permutation per epoch from the seed), the placeholders bound by the provider's
 * names after a check, and accuracy measured on the held-out digits after every epoch.
 */
public final class MnistTrainer {
  /**
   * What one epoch did.
   *
   * @param epoch from 1
   * @param samples training digits the provider delivered this epoch: the rows of its batches minus
   *     their padding (with the trainer's {@code DISCARD} policy, the digits of the full batches)
   * @param seconds wall time of the epoch's training
   * @param loss mean cross-entropy on the held-out digits afterwards
   * @param heldOutAccuracy fraction of held-out digits classified correctly afterwards
   */
  public record EpochReport(int epoch, int samples, double seconds, double loss, double heldOutAccuracy) {
    /** Training digits delivered per second of the epoch's training. */
    public double samplesPerSecond() {
      return samples / seconds;
    }
  }

  private MnistTrainer() {}

  /** Trains for {@code options.epochs()} epochs on providers built from {@code data}; returns the reports. */
  public static List<EpochReport> train(MnistData data, TrainOptions options, Consumer<EpochReport> progress) {
    try (MnistDigitProvider train = trainingProvider(data, options);
        MnistDigitProvider test = testProvider(data)) {
      return train(train, test, options, progress);
    }
  }

  /** Shuffled training batches of {@code options.batchSize()}; the incomplete last batch is dropped. */
  public static MnistDigitProvider trainingProvider(MnistData data, TrainOptions options) {
    return MnistDigitProvider.create(b -> b.samples(data.train()).batchSize(options.batchSize())
        .shuffle(true).seed(options.seed()).lastBatch(LastBatch.DISCARD));
  }

  /** The held-out digits in order, 500 a batch, the last batch smaller. */
  public static MnistDigitProvider testProvider(MnistData data) {
    return MnistDigitProvider.create(b -> b.samples(data.test()).batchSize(500).lastBatch(LastBatch.PARTIAL));
  }

  /**
   * Trains a new network for {@code options.epochs()} epochs of {@code train}, measuring accuracy on
   * {@code test} after each; returns the reports. The providers stay open.
   */
  public static List<EpochReport> train(MnistDigitProvider train, MnistDigitProvider test, TrainOptions options,
      Consumer<EpochReport> progress) {
    Nd4j.getRandom().setSeed(options.seed());
    SameDiff sd = MnistMlp.build();
    sd.setTrainingConfig(SameDiffBinding.bind(
        TrainingConfig.builder().updater(new Adam(1e-3)).l2(1e-5), train, sd).build());
    SameDiffGradients.createQuietly(sd);
    List<EpochReport> reports = new ArrayList<>();
    // With a worker, the next batch is collated on a background thread while SameDiff trains.
    BatchProvider<MnistDigitBatch> feed = options.workers() == 0 ? train : PrefetchingProvider.of(train);
    // Counts the real samples of the batches SameDiff was given, as they are handed over.
    CountingProvider<MnistDigitBatch> counted = new CountingProvider<>(feed);
    MultiDataSetIterator batches = ProviderIterators.multiDataSet(counted);
    try {
      for (int epoch = 1; epoch <= options.epochs(); epoch++) {
        long t0 = System.nanoTime();
        sd.fit(batches, 1);
        double seconds = (System.nanoTime() - t0) / 1e9;
        int seen = Math.toIntExact(counted.takeSamples());
        Evaluation e = evaluate(sd, test);
        EpochReport r = new EpochReport(epoch, seen, seconds, e.loss(), e.accuracy());
        reports.add(r);
        progress.accept(r);
      }
    } finally {
      if (feed instanceof PrefetchingProvider) {
        // Stops the prefetch thread; closing the wrapper would also close the caller's provider.
        ((PrefetchingProvider<?>) feed).stop();
      }
    }
    return reports;
  }

  /**
   * How the network does on held-out digits.
   *
   * @param loss mean softmax cross-entropy
   * @param accuracy fraction whose largest logit is their label
   */
  record Evaluation(double loss, double accuracy) {}

  /** Mean cross-entropy and accuracy of the network on {@code test}'s real (unpadded) digits. */
  static Evaluation evaluate(SameDiff sd, MnistDigitProvider test) {
    long correct = 0;
    long total = 0;
    double lossSum = 0;
    for (MnistDigitBatch b : test) {
      INDArray logits = sd.batchOutput().input("image", b.getImage()).output(MnistMlp.LOGITS).outputSingle();
      INDArray predicted = logits.argMax(1);
      INDArray labels = b.getLabel();
      for (int r = 0; r < b.countSamples(); r++) {
        int label = labels.getInt(r);
        if (predicted.getLong(r) == label) {
          correct++;
        }
        // log-sum-exp of the row minus the true class's logit, shifted by the row's max for stability
        double max = Double.NEGATIVE_INFINITY;
        for (int c = 0; c < 10; c++) {
          max = Math.max(max, logits.getDouble(r, c));
        }
        double sum = 0;
        for (int c = 0; c < 10; c++) {
          sum += Math.exp(logits.getDouble(r, c) - max);
        }
        lossSum += max + Math.log(sum) - logits.getDouble(r, label);
        total++;
      }
    }
    return new Evaluation(lossSum / total, (double) correct / total);
  }
}
