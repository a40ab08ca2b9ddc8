package dev.minibatch.runtime.io.csv;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider contract on {@link CsvProvider}: a CSV file written per provider, row {@code i} =
 * {@code i,10000+i,20000+i}, the last column the label ({@link IndexedSamples}'s encoding).
 */
class CsvProviderContractTest extends ProviderContract {
  @TempDir
  Path dir;

  @Override
  protected ProviderFixture fixture() {
    return new Csv(dir);
  }

  static final class Csv implements ProviderFixture {
    private final Path dir;
    private int files;

    Csv(Path dir) {
      this.dir = dir;
    }

    @Override
    public Set<Capability> capabilities() {
      return ProviderFixture.randomAccess();
    }

    @Override
    public CsvProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      Path file = dir.resolve("samples-" + files++ + ".csv");
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < numSamples; i++) {
        float[] d = IndexedSamples.data(i);
        sb.append((int) d[0]).append(',').append((int) d[1]).append(',').append(IndexedSamples.label(i)).append('\n');
      }
      try {
        Files.writeString(file, sb, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return CsvProvider.builder().dataFile(file).format(f -> f.labelColumn(2)).dataShape(2).apply(settings).build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return IndexedSamples.holds(batch, row, sample);
    }
  }
}
