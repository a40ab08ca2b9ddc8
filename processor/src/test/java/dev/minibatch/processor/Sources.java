package dev.minibatch.processor;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import javax.tools.JavaFileObject;

/** Test helpers: sources in package {@code test}, compiled with the real processor. */
final class Sources {
  private Sources() {}

  static JavaFileObject source(String simpleName, String... lines) {
    return JavaFileObjects.forSourceLines("test." + simpleName, lines);
  }

  /** A source in package test with the usual imports, then {@code body}. */
  static JavaFileObject sample(String simpleName, String body) {
    return JavaFileObjects.forSourceString("test." + simpleName,
        "package test;\n\n"
            + "import dev.minibatch.DType;\n"
            + "import dev.minibatch.DataProvider;\n"
            + "import dev.minibatch.Provides;\n"
            + "import org.nd4j.linalg.api.ndarray.INDArray;\n\n"
            + body);
  }

  static Compilation compile(JavaFileObject... sources) {
    return Compiler.javac().withProcessors(new MinibatchProcessor()).withOptions("-Xlint:all,-processing").compile(sources);
  }

  static Compilation compile(String[] options, JavaFileObject... sources) {
    return Compiler.javac().withProcessors(new MinibatchProcessor()).withOptions((Object[]) options).compile(sources);
  }

  /**
   * Compiles with javac directly (compile-testing hides generated files of a failed compilation)
   * and returns the generated source files, relative to the source output directory, sorted.
   */
  static java.util.List<String> generatedWhenFailing(JavaFileObject... sources) {
    return generatedWhenFailing(new String[0], sources);
  }

  /** {@link #generatedWhenFailing(JavaFileObject...)} with processor {@code options} ({@code -Akey=value}). */
  static java.util.List<String> generatedWhenFailing(String[] options, JavaFileObject... sources) {
    try {
      java.nio.file.Path gen = java.nio.file.Files.createTempDirectory("gen");
      java.nio.file.Path classes = java.nio.file.Files.createTempDirectory("classes");
      javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
      javax.tools.JavaCompiler.CompilationTask task = javac.getTask(new java.io.StringWriter(), null, d -> { },
          java.util.stream.Stream.concat(java.util.stream.Stream.of("-s", gen.toString(), "-d", classes.toString(),
              "-proc:only"), java.util.Arrays.stream(options)).toList(), null,
          java.util.List.of(sources));
      task.setProcessors(java.util.List.of(new MinibatchProcessor()));
      task.call();
      try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(gen)) {
        return files.filter(java.nio.file.Files::isRegularFile)
            .map(p -> gen.relativize(p).toString().replace('\\', '/'))
            .sorted()
            .toList();
      } finally {
        delete(gen);
        delete(classes);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and everything in it: the test leaves nothing in the temporary directory. */
  private static void delete(java.nio.file.Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<java.nio.file.Path> all = java.nio.file.Files.walk(dir)) {
      for (java.nio.file.Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(p);
      }
    }
  }
}
