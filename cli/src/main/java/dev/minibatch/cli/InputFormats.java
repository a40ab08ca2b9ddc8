package dev.minibatch.cli;

import dev.minibatch.runtime.internal.io.FileBytes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * The formats the CLI knows, in the order they are tried: idx, HDF5, the {@link InputFormat}
 * services on the class path, then CSV (any text).
 */
final class InputFormats {
  private static final int HEAD = 4096;

  private final List<InputFormat> formats;

  private InputFormats(List<InputFormat> formats) {
    this.formats = List.copyOf(formats);
  }

  /** The built-in formats and the services found by {@code loader}. */
  static InputFormats load(ClassLoader loader) {
    List<InputFormat> all = new ArrayList<>(List.of(new IdxInput(), new Hdf5Input(), new RecordIOInput()));
    for (InputFormat f : ServiceLoader.load(InputFormat.class, loader)) {
      all.add(f);
    }
    all.add(new CsvInput());
    return new InputFormats(all);
  }

  /** The names, in the order tried. */
  List<String> names() {
    return formats.stream().map(InputFormat::name).toList();
  }

  /**
   * The format named {@code forced}, or the first that recognises {@code file}.
   *
   * @throws IllegalArgumentException for an unknown name or an unrecognised file
   * @throws UncheckedIOException if the file cannot be read
   */
  InputFormat of(Path file, @Nullable String forced) {
    if (forced != null) {
      return formats.stream().filter(f -> f.name().equalsIgnoreCase(forced)).findFirst().orElseThrow(() ->
          new IllegalArgumentException("unknown format '" + forced + "'; the formats are " + names()));
    }
    byte[] head = head(file);
    for (InputFormat f : formats) {
      if (f.recognizes(file, head)) {
        return f;
      }
    }
    throw new IllegalArgumentException(file + ": not a format this tool knows (" + String.join(", ", names())
        + "); name one with --format");
  }

  /** The first bytes of {@code file}, decompressed when it is gzip. */
  static byte[] head(Path file) {
    try (InputStream raw = Files.newInputStream(file)) {
      byte[] head = raw.readNBytes(HEAD);
      if (!FileBytes.isGzip(head)) {
        return head;
      }
    } catch (NoSuchFileException e) {
      throw new UncheckedIOException(file + ": no such file", e);
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readNBytes(HEAD);
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": corrupt gzip data: " + e.getMessage(), e);
    }
  }
}
