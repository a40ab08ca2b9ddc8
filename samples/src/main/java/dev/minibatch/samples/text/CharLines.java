package dev.minibatch.samples.text;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Lines of a text as {@link CharLine} samples, each as long as its line: the char-LSTM's data. The
 * bundled text is the project's own LICENSE (the Apache License 2.0), which the build copies into
 * the samples' resources.
 */
public final class CharLines {
  /** The class-path resource of the bundled text. */
  public static final String LICENSE = "/text/LICENSE";

  private CharLines() {}

  /** The bundled LICENSE text. */
  public static String license() {
    try (InputStream in = CharLines.class.getResourceAsStream(LICENSE)) {
      if (in == null) {
        throw new IllegalStateException(LICENSE + " is not on the class path; build the samples module with Maven");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + LICENSE, e);
    }
  }

  /**
   * One sample per line of {@code text} with at least two characters once its indentation and
   * trailing blanks are stripped: the line's ids but the last, and its ids but the first.
   */
  public static List<CharLine> lines(String text, Vocabulary vocabulary) {
    List<CharLine> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      String s = line.strip();
      if (s.length() < 2) {
        continue;
      }
      int[] ids = vocabulary.encode(s);
      out.add(new CharLine(java.util.Arrays.copyOf(ids, ids.length - 1),
          java.util.Arrays.copyOfRange(ids, 1, ids.length)));
    }
    return out;
  }
}
