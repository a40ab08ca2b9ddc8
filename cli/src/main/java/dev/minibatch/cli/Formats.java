package dev.minibatch.cli;

import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.csv.CsvProvider;
import dev.minibatch.runtime.io.hdf5.Hdf5Provider;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.mnist.MnistProvider;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * The runtime's {@link Format}s the command line knows, in the order they are tried: idx, HDF5,
 * RecordIO, image folders, the {@link Format} services on the class path, then CSV (any text).
 */
final class Formats {
  private final List<Format> formats;

  private Formats(List<Format> formats) {
    this.formats = List.copyOf(formats);
  }

  /** The built-in formats and the services found by {@code loader}. */
  static Formats load(ClassLoader loader) {
    List<Format> all = new ArrayList<>(List.of(MnistProvider.format(), Hdf5Provider.format(),
        ImageRecordProvider.format(), ImageRecordProvider.folderFormat()));
    for (Format f : ServiceLoader.load(Format.class, loader)) {
      all.add(f);
    }
    all.add(CsvProvider.format());
    return new Formats(all);
  }

  /** The names, in the order tried. */
  List<String> names() {
    return formats.stream().map(Format::name).toList();
  }

  /**
   * The format named {@code forced}, or the first that recognises {@code file}.
   *
   * @throws IllegalArgumentException for an unknown name or an unrecognised file
   * @throws UncheckedIOException if the file cannot be read
   */
  Format of(Path file, @Nullable String forced) {
    if (forced != null) {
      return formats.stream().filter(f -> f.name().equalsIgnoreCase(forced)).findFirst().orElseThrow(() ->
          new IllegalArgumentException("unknown format '" + forced + "'; the formats are " + names()));
    }
    byte[] head = Format.head(file);
    for (Format f : formats) {
      if (f.probe(file, head)) {
        return f;
      }
    }
    throw new IllegalArgumentException(file + ": not a format this tool knows (" + String.join(", ", names())
        + "); name one with --format");
  }
}
