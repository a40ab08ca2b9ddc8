package dev.minibatch.cli;

import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Format}s the command line knows: every {@link Format} service on the class path (the
 * runtime's built-ins, the shard set of {@code minibatch-shards}, plugged-in ones), in the order
 * detection tries them, {@link Format#probeOrder()} then name: idx, HDF5, RecordIO, shard set, image
 * folder, plugged-in formats, CSV (any text) last.
 */
final class Formats {
  private final List<Format> formats;

  private Formats(List<Format> formats) {
    this.formats = List.copyOf(formats);
  }

  /** The services {@code loader} finds, in probe order. */
  static Formats load(ClassLoader loader) {
    List<Format> all = new ArrayList<>();
    ServiceLoader.load(Format.class, loader).forEach(all::add);
    all.sort(Comparator.comparingInt(Format::probeOrder).thenComparing(Format::name));
    return new Formats(all);
  }

  /** The names, in the order tried. */
  List<String> names() {
    return formats.stream().map(Format::name).toList();
  }

  /**
   * The format named {@code forced}, or the first that recognises {@code location}.
   *
   * @throws IllegalArgumentException for an unknown name or an unrecognised location
   * @throws UncheckedIOException if the location cannot be read
   */
  Format of(Location location, @Nullable String forced) {
    if (forced != null) {
      return formats.stream().filter(f -> f.name().equalsIgnoreCase(forced)).findFirst().orElseThrow(() ->
          new IllegalArgumentException("unknown format '" + forced + "'; the formats are " + names()));
    }
    byte[] head = Format.head(location);
    for (Format f : formats) {
      if (f.probe(location, head)) {
        return f;
      }
    }
    throw new IllegalArgumentException(location + ": not a format this tool knows (" + String.join(", ", names())
        + "); name one with --format");
  }
}
