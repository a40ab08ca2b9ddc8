package dev.minibatch.runtime.io.mnist;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.contract.RowValues;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider contract on {@link MnistProvider}: idx files written per provider (big-endian
 * headers: images magic 2051, n, 2 rows, 2 cols; labels magic 2049, n), read with scale 1 so the
 * pixels arrive as their byte values. Image {@code i} is {@code [i % 256, i / 256, 255 - i % 256,
 * 77]} (the first two pixels give {@code i} exactly), label {@code i % 256} (one byte is all an
 * idx1-ubyte label holds).
 */
class MnistProviderContractTest extends ProviderContract {
  @TempDir
  Path dir;

  @Override
  protected ProviderFixture fixture() {
    return new Mnist(dir);
  }

  static final class Mnist implements ProviderFixture {
    private final Path dir;
    private int files;

    Mnist(Path dir) {
      this.dir = dir;
    }

    static int[] pixels(long i) {
      return new int[] {(int) (i % 256), (int) (i / 256), (int) (255 - i % 256), 77};
    }

    @Override
    public Set<Capability> capabilities() {
      return ProviderFixture.randomAccess();
    }

    @Override
    public MnistProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      int f = files++;
      Path images = dir.resolve("images-" + f + "-idx3-ubyte");
      Path labels = dir.resolve("labels-" + f + "-idx1-ubyte");
      try (DataOutputStream img = new DataOutputStream(Files.newOutputStream(images));
          DataOutputStream lab = new DataOutputStream(Files.newOutputStream(labels))) {
        img.writeInt(2051);
        img.writeInt(numSamples);
        img.writeInt(2);
        img.writeInt(2);
        lab.writeInt(2049);
        lab.writeInt(numSamples);
        for (int i = 0; i < numSamples; i++) {
          for (int p : pixels(i)) {
            img.writeByte(p);
          }
          lab.writeByte(i % 256);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return MnistProvider.builder().image(images).label(labels).scale(1f).apply(settings).build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      double[] expected = java.util.Arrays.stream(pixels(sample)).asDoubleStream().toArray();
      return batch.data().size() == 1 && batch.label().size() == 1
          && RowValues.equals(batch.data().get(0), row, expected)
          && RowValues.equals(batch.label().get(0), row, sample % 256);
    }
  }
}
