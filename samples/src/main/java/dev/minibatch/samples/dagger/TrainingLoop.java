package dev.minibatch.samples.dagger;

import dev.minibatch.samples.mnist.MnistDigitProvider;
import dev.minibatch.samples.mnist.MnistTrainer;
import dev.minibatch.samples.mnist.TrainOptions;
import java.util.List;
import java.util.function.Consumer;
import javax.inject.Inject;
import javax.inject.Named;

/** The training loop, injected with its providers and settings; closes the providers when done. */
public final class TrainingLoop {
  private final MnistDigitProvider train;
  private final MnistDigitProvider test;
  private final TrainOptions options;

  @Inject
  TrainingLoop(@Named("train") MnistDigitProvider train, @Named("test") MnistDigitProvider test, TrainOptions options) {
    this.train = train;
    this.test = test;
    this.options = options;
  }

  /** Trains, reporting every epoch, and returns the reports. */
  public List<MnistTrainer.EpochReport> run(Consumer<MnistTrainer.EpochReport> progress) {
    try (train; test) {
      return MnistTrainer.train(train, test, options, progress);
    }
  }
}
