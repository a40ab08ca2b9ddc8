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
}
