package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The provider contract on {@link Hdf5Provider} filled by two reader threads (see {@link Hdf5Fixture}). */
class Hdf5ReadersProviderContractTest extends ProviderContract {
  @TempDir
  Path dir;

  @Override
  protected ProviderFixture fixture() {
    return new Hdf5Fixture(Hdf5Fixture.Mode.READERS, dir);
  }
}
