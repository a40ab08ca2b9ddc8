package dev.minibatch.runtime.io.image;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.contract.RowValues;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider contract on {@link ImageRecordProvider}: image {@code i} is a 1x2 grayscale PNG
 * with pixels {@code [i % 256, i / 256]}, its header label {@code i}; read with dataShape (1, 1, 2)
 * and no augmentation, so the batch holds the pixels as floats. Two reader threads.
 */
class ImageRecordProviderContractTest extends ProviderContract {
  @TempDir
  Path dir;

  @Override
  protected ProviderFixture fixture() {
    return new Images(dir);
  }

  static final class Images implements ProviderFixture {
    private final Path dir;
    private int files;

    Images(Path dir) {
      this.dir = dir;
    }

    @Override
    public Set<Capability> capabilities() {
      Set<Capability> c = EnumSet.copyOf(ProviderFixture.randomAccess());
      c.add(Capability.THREADED);
      return c;
    }

    @Override
    public ImageRecordProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      List<ImageRecord> records = new ArrayList<>();
      for (int i = 0; i < numSamples; i++) {
        int s = i;
        records.add(ImageRecord.of(i, i, TestImages.png(1, 2, 1, (y, x, c) -> x == 0 ? s % 256 : s / 256)));
      }
      Path rec = TestImages.write(dir.resolve("contract-" + files++ + ".rec"), records);
      // The contract's tests assume PARTIAL unless they set a policy; ImageRecordProvider defaults to
      // MXNet's round_batch (PAD_CONTINUE).
      return ImageRecordProvider.builder().pathImgrec(rec).dataShape(1, 1, 2).preprocessThreads(2)
          .lastBatch(LastBatch.PARTIAL).apply(settings).build();
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return batch.data().size() == 1 && batch.label().size() == 1
          && RowValues.equals(batch.data().get(0), row, sample % 256, sample / 256)
          && RowValues.equals(batch.label().get(0), row, sample);
    }
  }
}
