package dev.minibatch.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code <Sample>SparkRows} is only written when Spark and the minibatch Spark module are on the
 * compile class path; this module's tests have neither. (The generated class itself is compiled
 * and run in the spark module's tests, which have both.)
 */
class SparkRowsAbsentTest {
  @Test
  void notGeneratedWithoutSpark() {
    assertNull(getClass().getClassLoader().getResource("org/apache/spark/sql/Row.class"),
        "this test needs a class path without Spark");
    Compilation c = Sources.compile(GenerationTest.DIGIT);
    assertThat(c).succeededWithoutWarnings();
    assertTrue(c.generatedSourceFile("test.DigitSparkRows").isEmpty());
    long sources = c.generatedSourceFiles().stream().filter(f -> f.getKind() == JavaFileObject.Kind.SOURCE).count();
    assertEquals(2, sources, "provider and batch only");
  }
}
