package dev.minibatch.processor.cases;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One bad input to the processor and every diagnostic it must give: the sources (package {@code
 * test}), the processor options, and per expected error its ID, the line it points at and words
 * of its text. The javac and the KSP2 front end run the same cases ({@code DiagnosticsTest},
 * {@code KspDiagnosticsTest}).
 *
 * @param name the case's name, a test's display name
 * @param sources the compilation's sources
 * @param options processor options ({@code minibatch.daggerModule=maybe})
 * @param errors the processor's errors, in the order reported
 * @param compilerErrorsToo true when the compiler reports errors of its own as well (an
 *     unresolvable type), so only the processor's are counted
 * @param generated the source files generated (relative paths) although the compilation fails: the
 *     clean types' files; empty when the broken type is the only one
 */
public record DiagnosticCase(String name, List<Source> sources, List<String> options, List<Expected> errors,
    boolean compilerErrorsToo, List<String> generated) {

  /**
   * A source file.
   *
   * @param simpleName the top-level type's simple name (the file is {@code test/<simpleName>.java})
   * @param lines its lines
   */
  public record Source(String simpleName, List<String> lines) {
    /** The text, lines joined with {@code \n}. */
    public String text() {
      return String.join("\n", lines) + "\n";
    }

    /** The 1-based number of the only line containing {@code fragment}. */
    public int lineContaining(String fragment) {
      int found = -1;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains(fragment)) {
          if (found >= 0) {
            throw new IllegalArgumentException("'" + fragment + "' is on more than one line of " + simpleName);
          }
          found = i + 1;
        }
      }
      if (found < 0) {
        throw new IllegalArgumentException("'" + fragment + "' is on no line of " + simpleName);
      }
      return found;
    }
  }

  /**
   * An error the processor must report.
   *
   * @param id the ID, e.g. {@code ShapeDim}
   * @param source the file it points into; null for an error about the whole compilation
   * @param lineContaining a fragment of the only line it points at; null with {@code source}
   * @param texts fragments of its text
   */
  public record Expected(String id, @Nullable Source source, @Nullable String lineContaining, List<String> texts) {
    /** The tag the message starts with, e.g. {@code [minibatch/ShapeDim]}. */
    public String tag() {
      return "[minibatch/" + id + "]";
    }

    /** The 1-based line it points at; -1 for none. */
    public int line() {
      return source == null || lineContaining == null ? -1 : source.lineContaining(lineContaining);
    }
  }

  static Builder named(String name) {
    return new Builder(name);
  }

  /** Builds a case. */
  static final class Builder {
    private final String name;
    private final List<Source> sources = new ArrayList<>();
    private final List<String> options = new ArrayList<>();
    private final List<Expected> errors = new ArrayList<>();
    private final List<String> generated = new ArrayList<>();
    private boolean compilerErrorsToo;

    private Builder(String name) {
      this.name = name;
    }

    /** A sample in package {@code test} with the imports every case uses, then {@code body}. */
    Builder sample(String simpleName, String... body) {
      List<String> lines = new ArrayList<>(List.of(
          "package test;",
          "import dev.minibatch.DType;",
          "import dev.minibatch.DataProvider;",
          "import dev.minibatch.Provides;",
          "import org.nd4j.linalg.api.ndarray.INDArray;",
          "import static dev.minibatch.Provides.VARIABLE;"));
      lines.addAll(List.of(body));
      sources.add(new Source(simpleName, List.copyOf(lines)));
      return this;
    }

    /** A source of exactly {@code lines}. */
    Builder source(String simpleName, String... lines) {
      sources.add(new Source(simpleName, List.of(lines)));
      return this;
    }

    Builder option(String option) {
      options.add(option);
      return this;
    }

    /** An error in the first source, on the line containing {@code lineContaining}, with {@code texts}. */
    Builder error(String id, String lineContaining, String... texts) {
      errors.add(new Expected(id, sources.get(0), lineContaining, List.of(texts)));
      return this;
    }

    /** An error about the whole compilation, with no position. */
    Builder errorWithoutPosition(String id, String... texts) {
      errors.add(new Expected(id, null, null, List.of(texts)));
      return this;
    }

    Builder compilerErrorsToo() {
      compilerErrorsToo = true;
      return this;
    }

    Builder generates(String... paths) {
      generated.addAll(List.of(paths));
      return this;
    }

    DiagnosticCase build() {
      return new DiagnosticCase(name, List.copyOf(sources), List.copyOf(options), List.copyOf(errors),
          compilerErrorsToo, List.copyOf(generated));
    }
  }
}
