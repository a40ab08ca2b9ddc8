package dev.minibatch.apicheck;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;

/**
 * The runtime's {@code internal} types a module above it uses, as {@code jdeps} reads the module's
 * compiled classes, against the module's checked-in {@code internal-uses.txt}: the wall between
 * the runtime and the modules built on it. Java cannot hide a public type of one package from
 * another module (and ND4J's module descriptors keep the runtime off the module path, see
 * docs/engine.md), so the build holds the line instead: a module that starts to use another
 * internal type fails its test until the listing (reviewed like the public API) says so, and the
 * listing only shrinks as the types it names move behind the SPI.
 */
public final class InternalUses {
  private static final String INTERNAL = "dev.minibatch.runtime.internal";

  private InternalUses() {}

  /** The runtime internal types the classes in {@code classes} use, sorted, one per line. */
  public static List<String> of(Path classes) {
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException("this JDK has no jdeps"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:class", "-filter:none",
        "-e", Pattern.quote(INTERNAL) + "\\..*", classes.toString());
    if (code != 0) {
      throw new IllegalStateException("jdeps failed (" + code + "): " + err);
    }
    TreeSet<String> used = new TreeSet<>();
    for (String line : out.toString().split("\n")) {
      String[] t = line.trim().split("\\s+");
      // "   our.Class   -> dev.minibatch.runtime.internal.x.Type   not found|jar"
      if (t.length >= 3 && t[1].equals("->") && t[2].startsWith(INTERNAL + ".")) {
        // Nested types count as their top-level type.
        used.add(t[2].replaceAll("\\$.*", ""));
      }
    }
    return List.copyOf(used);
  }

  /**
   * Compares what {@code classes} use with {@code listing}, or rewrites the listing when {@link
   * PublicApi#UPDATE_PROPERTY} is set.
   *
   * @throws AssertionError naming every type added to or gone from the listing
   */
  public static void check(String module, Path classes, Path listing) {
    List<String> now = of(classes);
    String actual = "# The runtime's internal types that " + module + " uses: " + now.size()
        + ". Each moves behind the SPI in time; rewrite with -D" + PublicApi.UPDATE_PROPERTY + "=true.\n"
        + now.stream().map(s -> s + "\n").collect(Collectors.joining());
    try {
      if (Boolean.getBoolean(PublicApi.UPDATE_PROPERTY)) {
        Files.writeString(listing, actual, StandardCharsets.UTF_8);
        return;
      }
      String expected = Files.exists(listing) ? Files.readString(listing, StandardCharsets.UTF_8) : "";
      if (!expected.equals(actual)) {
        List<String> was = Arrays.stream(expected.split("\n")).filter(l -> !l.startsWith("#")).toList();
        String added = now.stream().filter(l -> !was.contains(l)).map(l -> "  + " + l).collect(Collectors.joining("\n"));
        String removed = was.stream().filter(l -> !l.isEmpty() && !now.contains(l)).map(l -> "  - " + l)
            .collect(Collectors.joining("\n"));
        throw new AssertionError(module + " uses other runtime internal types than " + listing
            + " lists (use the public API or the SPI instead; if it must, review and rewrite the listing with -D"
            + PublicApi.UPDATE_PROPERTY + "=true):\n" + added + (added.isEmpty() || removed.isEmpty() ? "" : "\n")
            + removed);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
