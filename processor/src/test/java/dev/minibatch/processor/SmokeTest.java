package dev.minibatch.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void digit() throws Exception {
    JavaFileObject src = Sources.sample("Digit",
        "@DataProvider\n"
        + "public record Digit(@Provides(shape = {28, 28}) float[][] image,\n"
        + "    @Provides(name = \"softmax_label\", label = true) int label) {}\n");
    Compilation c = Sources.compile(src);
    for (JavaFileObject f : c.generatedSourceFiles()) {
      System.out.println(f.getCharContent(true));
    }
    System.out.println(c.diagnostics());
    assertThat(c).succeededWithoutWarnings();
  }
}
