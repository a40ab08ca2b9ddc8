package dev.minibatch.shards;

import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The provider contract on a {@link ShardProvider#mix()} (see {@link ShardSetFixture}). */
class ShardMixProviderContractTest extends ProviderContract {
  @TempDir
  Path dir;

  @Override
  protected ProviderFixture fixture() {
    return new ShardSetFixture(ShardSetFixture.Mode.MIX, dir);
  }
}
