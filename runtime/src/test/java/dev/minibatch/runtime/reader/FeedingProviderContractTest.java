package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;

/** The provider contract on {@link FeedingProvider} over a plain (single-threaded) reader. */
class FeedingProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new FeedingFixture(false);
  }
}
