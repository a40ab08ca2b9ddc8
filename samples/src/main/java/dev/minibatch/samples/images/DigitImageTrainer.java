package dev.minibatch.samples.images;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.interop.ProviderIterators;
import dev.minibatch.runtime.interop.SameDiffBinding;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.samples.CountingProvider;
import dev.minibatch.samples.SameDiffGradients;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Trains {@link DigitCnn} on digit images through {@link ImageRecordProvider}: training images
 * padded by 2 pixels (fill 0, the digits' background) and randomly cropped back to 28×28, rotated by
 * up to 10°, scaled to [0, 1], shuffled per epoch; held-out images centre-cropped only.
 */
public final class DigitImageTrainer {
  /**
   * What one epoch did.
   *
   * @param epoch from 1
   * @param samples training images the provider delivered (padding rows excluded)
   * @param seconds wall time of the epoch's training
   * @param heldOutAccuracy fraction of held-out images classified correctly afterwards
   */
  public record EpochReport(int epoch, long samples, double seconds, double heldOutAccuracy) {
    /** Training images per second. */
    public double samplesPerSecond() {
      return samples / seconds;
    }
  }

  private DigitImageTrainer() {}

  /** The augmented, shuffled training provider over {@code rec}. */
  public static ImageRecordProvider training(Path rec, int batchSize, int threads, long seed) {
    return ImageRecordProvider.builder().pathImgrec(rec).dataShape(1, 28, 28).batchSize(batchSize)
        .shuffle(true).seed(seed).lastBatch(LastBatch.DISCARD)
        .augment(a -> a.pad(2).fillValue(0).randCrop(true).maxRotateAngle(10)).normalize(n -> n.scale(1f / 255))
        .preprocessThreads(threads).build();
  }

  /** The held-out provider over {@code rec}: in order, no augmentation, the last batch smaller. */
  public static ImageRecordProvider heldOut(Path rec, int threads) {
    return ImageRecordProvider.builder().pathImgrec(rec).dataShape(1, 28, 28).batchSize(500)
        .lastBatch(LastBatch.PARTIAL).normalize(n -> n.scale(1f / 255)).preprocessThreads(threads).build();
  }

  /** Trains a new network for {@code epochs} epochs, measuring held-out accuracy after each. */
  public static List<EpochReport> train(ImageRecordProvider train, ImageRecordProvider test, int epochs, long seed,
      Consumer<EpochReport> progress) {
    Nd4j.getRandom().setSeed(seed);
    SameDiff sd = DigitCnn.build();
    sd.setTrainingConfig(SameDiffBinding.bind(TrainingConfig.builder().updater(new Adam(2e-3)), train, sd).build());
    SameDiffGradients.createQuietly(sd);
    List<EpochReport> reports = new ArrayList<>();
    // Count what the provider delivered: rows minus padding of every batch the network saw.
    CountingProvider<NamedBatch> counted = new CountingProvider<>(train);
    var batches = ProviderIterators.multiDataSet(counted);
    for (int epoch = 1; epoch <= epochs; epoch++) {
      long t0 = System.nanoTime();
      sd.fit(batches, 1);
      double seconds = (System.nanoTime() - t0) / 1e9;
      EpochReport r = new EpochReport(epoch, counted.takeSamples(), seconds, accuracy(sd, test));
      reports.add(r);
      progress.accept(r);
    }
    return reports;
  }

  /** The fraction of {@code test}'s images whose largest logit is their label. */
  static double accuracy(SameDiff sd, ImageRecordProvider test) {
    long correct = 0;
    long total = 0;
    for (NamedBatch b : test) {
      INDArray logits = sd.batchOutput().input("data", b.data().get(0)).output(DigitCnn.LOGITS).outputSingle();
      INDArray predicted = logits.argMax(1);
      INDArray labels = b.label().get(0);
      for (int r = 0; r < b.countSamples(); r++) {
        if (predicted.getLong(r) == labels.getInt(r)) {
          correct++;
        }
        total++;
      }
    }
    return (double) correct / total;
  }
}
