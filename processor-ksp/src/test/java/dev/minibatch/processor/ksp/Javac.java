package dev.minibatch.processor.ksp;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.minibatch.processor.MinibatchProcessor;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;

/** Runs the javac processor on the same sources, for comparison. */
final class Javac {
  private Javac() {}

  static JavaFileObject source(String qualifiedName, String text) {
    return JavaFileObjects.forSourceString(qualifiedName, text);
  }

  static Compilation compile(List<String> options, JavaFileObject... sources) {
    return Compiler.javac().withProcessors(new MinibatchProcessor())
        .withOptions(options.stream().map(o -> "-A" + o).toArray()).compile(sources);
  }

  /** The processor's errors as {@link Ksp2.Error}s: file name, line, first line of the message. */
  static List<Ksp2.Error> errors(Compilation c) {
    return c.errors().stream()
        .filter(d -> d.getMessage(Locale.ROOT).startsWith("[minibatch/"))
        .map(Javac::error)
        .toList();
  }

  private static Ksp2.Error error(Diagnostic<? extends JavaFileObject> d) {
    String message = d.getMessage(Locale.ROOT).lines().findFirst().orElse("");
    if (d.getSource() == null) {
      return new Ksp2.Error(null, -1, message);
    }
    String file = Path.of(d.getSource().toUri().getPath()).getFileName().toString();
    return new Ksp2.Error(file, (int) d.getLineNumber(), message);
  }
}
