package dev.minibatch.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kotlin DSL ({@code internal.KotlinDslWriter}) as kapt's processing shows it: samples are kapt stubs of
 * Kotlin classes (Java sources with {@code @kotlin.Metadata}, as kapt writes them), the DSL marker is
 * a stand-in annotation of the same name, and {@code -Akapt.kotlin.generated} names the directory.
 * That the generated Kotlin compiles and works is tested in {@code samples/}, which compiles its
 * Kotlin samples with kapt and runs them.
 */
class KotlinDslTest {
  /** What kapt makes of {@code @DataProvider(batchSize = 4) class Sensor(@field:Provides(shape = [3]) val reading: FloatArray, …)}. */
  static final JavaFileObject SENSOR_STUB = Sources.sample("Sensor",
      "@kotlin.Metadata(k = 1)\n"
          + "@DataProvider(batchSize = 4)\n"
          + "public final class Sensor {\n"
          + "  @Provides(shape = {3}) private final float[] reading = null;\n"
          + "  @Provides(name = \"is_fault\", label = true) private final int fault = 0;\n"
          + "  public Sensor(float[] reading, int fault) {}\n"
          + "  public final float[] getReading() { return null; }\n"
          + "  public final int getFault() { return 0; }\n"
          + "}\n");

  /** minibatch-kotlin's marker, by name: the processor only looks it up. */
  static final JavaFileObject MARKER = JavaFileObjects.forSourceString("dev.minibatch.kotlin.MinibatchDsl",
      "package dev.minibatch.kotlin;\n\npublic @interface MinibatchDsl {}\n");

  @TempDir Path kotlinDir;

  private Compilation compile(JavaFileObject... sources) {
    return Sources.compile(new String[] {"-Xlint:all,-processing", "-Akapt.kotlin.generated=" + kotlinDir}, sources);
  }

  private List<String> kotlinFiles() throws IOException {
    try (Stream<Path> files = Files.walk(kotlinDir)) {
      return files.filter(Files::isRegularFile).map(p -> kotlinDir.relativize(p).toString().replace('\\', '/'))
          .sorted(Comparator.naturalOrder()).toList();
    }
  }

  @Test
  void goldenSensorDsl() throws IOException {
    Compilation c = compile(SENSOR_STUB, MARKER);
    assertThat(c).succeededWithoutWarnings();
    assertEquals(List.of("test/SensorProviderDsl.kt"), kotlinFiles());
    String golden;
    try (InputStream in = KotlinDslTest.class.getResourceAsStream("/golden/SensorProviderDsl.kt")) {
      golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertEquals(golden, Files.readString(kotlinDir.resolve("test/SensorProviderDsl.kt")));
  }

  @Test
  void onlyForKotlinClassesUnderKaptWithTheMarker() throws IOException {
    // A Java sample under kapt: no Kotlin.
    assertThat(compile(GenerationTest.DIGIT, MARKER)).succeeded();
    assertEquals(List.of(), kotlinFiles());
    // No minibatch-kotlin on the class path: the Java builder alone.
    assertThat(compile(SENSOR_STUB)).succeeded();
    assertEquals(List.of(), kotlinFiles());
    // Plain javac (no kapt option) writes no Kotlin anywhere, and says nothing about it.
    Compilation javac = Sources.compile(SENSOR_STUB, MARKER);
    assertThat(javac).succeededWithoutWarnings();
    assertTrue(javac.generatedFiles().stream().noneMatch(f -> f.getName().endsWith(".kt")));
  }

  @Test
  void aVariableLengthSampleGetsItsBucketsAndFixedLength() throws IOException {
    JavaFileObject stub = Sources.sample("Utterance",
        "@kotlin.Metadata(k = 1)\n"
            + "@DataProvider(batchSize = 2)\n"
            + "public final class Utterance {\n"
            + "  @Provides(shape = {Provides.VARIABLE, 2}) private final float[][] frames = null;\n"
            + "  @Provides(shape = {Provides.VARIABLE}, label = true, sameLengthAs = \"frames\") private final int[] phones = null;\n"
            + "  public final float[][] getFrames() { return null; }\n"
            + "  public final int[] getPhones() { return null; }\n"
            + "}\n");
    assertThat(compile(stub, MARKER)).succeededWithoutWarnings();
    String dsl = Files.readString(kotlinDir.resolve("test/UtteranceProviderDsl.kt"));
    assertTrue(dsl.contains("public fun buckets(vararg bounds: Int) {\n    bucketing = { it.buckets(*bounds) }"), dsl);
    assertTrue(dsl.contains("public fun buckets(buckets: Buckets) {\n    bucketing = { it.buckets(buckets) }"), dsl);
    assertTrue(dsl.contains("public var fixedLength: Boolean? = null"), dsl);
    assertTrue(dsl.contains("fixedLength?.let { builder.fixedLength(it) }"), dsl);
    assertTrue(dsl.contains("bucketing?.invoke(builder)"), dsl);
    assertFalse(dsl.contains("shards("), "no shard-set source without minibatch-shards: " + dsl);
  }
}
