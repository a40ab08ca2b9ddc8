package dev.minibatch.samples.dagger;

import dagger.BindsInstance;
import dagger.Component;
import dev.minibatch.samples.mnist.MnistDigitProviderModule;
import dev.minibatch.samples.mnist.TrainOptions;
import javax.inject.Singleton;

/** The Dagger component of the training app. */
@Singleton
@Component(modules = {MnistDigitProviderModule.class, MnistAppModule.class})
public interface MnistApp {
  /** The training loop, with its providers injected. */
  TrainingLoop trainingLoop();

  /** Creates the component. */
  @Component.Factory
  interface Factory {
    /** A component for {@code options}. */
    MnistApp create(@BindsInstance TrainOptions options);
  }

  /** Trains with the default options (or those given as arguments) and prints each epoch. */
  static void main(String[] args) {
    MnistApp app = DaggerMnistApp.factory().create(TrainOptions.parse(args));
    app.trainingLoop().run(r -> System.out.printf("epoch %d: loss %.4f, held-out accuracy %.2f%%%n",
        r.epoch(), r.loss(), 100 * r.heldOutAccuracy()));
  }
}
