package dev.minibatch.shards;

import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The provider contract on {@link ShardProvider} with two reader threads (see {@link ShardSetFixture}). */
class ShardReadersProviderContractTest extends ProviderContract {
  @TempDir
  Path dir;

  @Override
  protected ProviderFixture fixture() {
    return new ShardSetFixture(ShardSetFixture.Mode.READERS, dir);
  }
}
