package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;

/** The provider contract on {@link FeedingProvider} over a threaded reader ({@code xmap} + {@code buffered}). */
class ThreadedFeedingProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new FeedingFixture(true);
  }
}
