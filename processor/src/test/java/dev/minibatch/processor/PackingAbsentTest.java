package dev.minibatch.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import java.io.IOException;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code <Sample>PackedBatch} and the builder's {@code packed(...)} / {@code tokenBudget(...)} are
 * only written when minibatch-text is on the compile class path; this module's tests do not have it.
 * (The generated code is compiled and run in the samples module, which has it: {@code
 * GeneratedPackingTest} and the Kotlin DSL's test.)
 */
class PackingAbsentTest {
  private static final JavaFileObject DOCUMENT = Sources.sample("Document",
      "/** A document of token ids. */\n"
          + "@DataProvider(batchSize = 8)\n"
          + "public record Document(@Provides(shape = {Provides.VARIABLE}) int[] tokens) {}\n");

  @Test
  void notGeneratedWithoutTheTextModule() throws IOException {
    assertNull(getClass().getClassLoader().getResource("dev/minibatch/text/Packing.class"),
        "this test needs a class path without minibatch-text");
    Compilation c = Sources.compile(DOCUMENT);
    assertThat(c).succeededWithoutWarnings();
    assertTrue(c.generatedSourceFile("test.DocumentPackedBatch").isEmpty());
    String provider = c.generatedSourceFile("test.DocumentProvider").orElseThrow().getCharContent(true).toString();
    assertFalse(provider.contains("packed("), "no packed(...) on the builder");
    assertFalse(provider.contains("tokenBudget("), "no tokenBudget(...) on the builder");
  }
}
