package dev.minibatch.runtime.io;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import dev.minibatch.runtime.spi.Engine;
import dev.minibatch.runtime.spi.EngineProvider;

/**
 * The base of the providers over files loaded whole (MNIST, CSV, HDF5): their batches come from
 * the engine of their {@link LoadedFiles}, and their samples by index ({@link SampleSource}) and the
 * multicast of an epoch from the same files.
 */
public abstract class FileProvider extends EngineProvider<NamedBatch> implements SampleSource {
  private final LoadedFiles files;

  /** A provider over {@code files}. */
  protected FileProvider(LoadedFiles files) {
    this.files = files;
  }

  /**
   * What a file provider runs on: the loaded samples and the batching engine over them. The
   * runtime's file formats make them; a format of its own implements it.
   */
  public interface LoadedFiles {
    /** The engine that cuts the samples into batches. */
    Engine<NamedBatch> engine();

    /** Sample {@code i} of the files, in source order. */
    Sample sample(int i);

    /** The next epoch's batches for {@code consumers} consumers. */
    Multicast<NamedBatch> multicast(int consumers);
  }

  @Override
  protected final Engine<NamedBatch> engine() {
    return files.engine();
  }

  @Override
  public final Sample sample(int i) {
    return files.sample(i);
  }

  /**
   * The next epoch's batches read by {@code consumers} consumers through a {@link Multicast}
   * (Data Provider Core's Watcher): each consumer sees every batch once, in order, and a batch
   * buffer is reused only after every consumer has released it (moved past it or closed). With
   * reader threads the window is the ring's slots minus one, so the readers always have a buffer
   * to fill; without, it is 1. The epoch ends for all when every consumer has closed or finished.
   */
  public final Multicast<NamedBatch> multicast(int consumers) {
    return files.multicast(consumers);
  }
}
