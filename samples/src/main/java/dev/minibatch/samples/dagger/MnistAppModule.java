package dev.minibatch.samples.dagger;

import dagger.Module;
import dagger.Provides;
import dev.minibatch.LastBatch;
import dev.minibatch.samples.mnist.MnistData;
import dev.minibatch.samples.mnist.MnistDigitProvider;
import dev.minibatch.samples.mnist.TrainOptions;
import javax.inject.Named;
import javax.inject.Singleton;

/**
 * The app's bindings: the data, and the training and held-out providers, each made from the
 * builder that the generated {@code MnistDigitProviderModule} provides.
 */
@Module
public final class MnistAppModule {
  private MnistAppModule() {}

  @Provides
  @Singleton
  static MnistData data(TrainOptions options) {
    return MnistData.bundled().limitTrain(options.trainLimit());
  }

  @Provides
  @Singleton
  @Named("train")
  static MnistDigitProvider train(MnistDigitProvider.Builder builder, MnistData data, TrainOptions options) {
    return builder.samples(data.train()).batchSize(options.batchSize())
        .shuffle(true).seed(options.seed()).lastBatch(LastBatch.DISCARD).build();
  }

  @Provides
  @Singleton
  @Named("test")
  static MnistDigitProvider test(MnistDigitProvider.Builder builder, MnistData data) {
    return builder.samples(data.test()).batchSize(500).lastBatch(LastBatch.PARTIAL).build();
  }
}
