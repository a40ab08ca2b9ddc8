package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.contract.RowValues;
import io.jhdf.HdfFile;
import io.jhdf.WritableHdfFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@link Hdf5Provider} over an HDF5 file written per provider with jhdf: one dataset {@code c<k>}
 * per class {@code k}, holding the rows {@code [i, 10000 + i]} (float32) of that class's samples,
 * provided as {@code data}; the label is the class index, the only label an HDF5 sample
 * specification has. Consecutive samples form the classes, in order, so the specification order
 * is the sample order.
 *
 * <ul>
 *   <li>{@link Mode#PLAIN}: every sample of {@code 0..49} is its own class (label = {@code i}
 *       exactly); beyond, classes of 64 samples keep the number of entries (each reads the file)
 *       small.
 *   <li>{@link Mode#DRAWN}: class-probability draws. Class 0 has weight 1, every other class 0; a
 *       class of weight 0 is drawn after the others, in class order ({@link ClassSampler}), so the
 *       drawn order is the sample order — and {@code shuffle} permutes within each class. Classes of
 *       5 samples (so shuffle has something to permute; label = {@code i / 5}), of 64 beyond 50.
 *   <li>{@link Mode#READERS}: as PLAIN, filled by two reader threads.
 * </ul>
 *
 * A failing sample {@code k} is a process function throwing for sample {@code k} (on reader
 * threads).
 */
final class Hdf5Fixture implements ProviderFixture {
  /** How the provider reads its samples. */
  enum Mode {
    PLAIN, DRAWN, READERS
  }

  private final Mode mode;
  private final Path dir;
  private int files;

  Hdf5Fixture(Mode mode, Path dir) {
    this.mode = mode;
    this.dir = dir;
  }

  @Override
  public Set<Capability> capabilities() {
    Set<Capability> c = ProviderFixture.randomAccess();
    c.add(Capability.FAILING_SAMPLE);
    if (mode == Mode.READERS) {
      c.add(Capability.THREADED);
    }
    return c;
  }

  /** The class of sample {@code i}: classes are runs of consecutive samples. */
  private int classOf(long i) {
    int small = mode == Mode.DRAWN ? 5 : 1;
    return i < 50 ? (int) (i / small) : 50 / small + (int) ((i - 50) / 64);
  }

  @Override
  public Hdf5Provider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
    return builder(numSamples).apply(settings).build();
  }

  @Override
  public Hdf5Provider buildFailing(int numSamples, int failingSample, RuntimeException failure,
      Consumer<? super ProviderBuilder<?>> settings) {
    return builder(numSamples).process((s, ctx) -> {
      if (s.index() == failingSample) {
        throw failure;
      }
      return s;
    }).apply(settings).build();
  }

  @Override
  public boolean holds(Batch batch, int row, long sample) {
    return batch.data().size() == 1 && batch.label().size() == 1
        && RowValues.equals(batch.data().get(0), row, sample, IndexedSamples.DATA_OFFSET + sample)
        && RowValues.equals(batch.label().get(0), row, classOf(sample));
  }

  private Hdf5Provider.Builder builder(int numSamples) {
    List<float[][]> classes = new ArrayList<>();
    List<float[]> rows = new ArrayList<>();
    for (int i = 0; i < numSamples; i++) {
      rows.add(IndexedSamples.data(i));
      if (i + 1 == numSamples || classOf(i + 1) != classOf(i)) {
        classes.add(rows.toArray(new float[0][]));
        rows.clear();
      }
    }
    Path file = dir.resolve("samples-" + files++ + ".h5");
    try (WritableHdfFile out = HdfFile.write(file)) {
      for (int c = 0; c < classes.size(); c++) {
        out.putDataset("c" + c, classes.get(c));
      }
    }
    Hdf5Provider.Builder b = Hdf5Provider.builder().names("data");
    for (int c = 0; c < classes.size(); c++) {
      if (mode == Mode.DRAWN) {
        b.add(file, List.of("c" + c), "k" + c, c == 0 ? 1 : 0);
      } else {
        b.add(file, List.of("c" + c), "k" + c);
      }
    }
    if (mode == Mode.READERS) {
      b.readers(2);
    }
    return b;
  }
}
