package dev.minibatch.processor.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.tschuchort.compiletesting.JvmCompilationResult;
import com.tschuchort.compiletesting.KotlinCompilation;
import com.tschuchort.compiletesting.SourceFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * The same sample gives byte-identical generated files under every front end: Java samples under
 * javac and KSP2, a Kotlin sample under kapt and KSP2 (every generated source, the Kotlin DSL
 * included, and the schema manifests, compared byte for byte).
 */
class KspGenerationTest {
  /** Java samples covering every member form, type, variable-length form and a nested sample. */
  static final Map<String, String> JAVA = Map.of(
      "Digit", """
          package test;

          import dev.minibatch.DataProvider;
          import dev.minibatch.Provides;

          /** One MNIST digit. */
          @DataProvider(batchSize = 32)
          public record Digit(@Provides(shape = {28, 28}) float[][] image,
              @Provides(name = "softmax_label", label = true) int label) {}
          """,
      "Mixed", """
          package test;

          import dev.minibatch.DType;
          import dev.minibatch.DataProvider;
          import dev.minibatch.Provides;
          import org.nd4j.linalg.api.ndarray.INDArray;

          @DataProvider
          public class Mixed {
            static final int H = 4;
            @Provides boolean flag;
            @Provides byte b;
            @Provides short s;
            @Provides char c;
            @Provides long l;
            @Provides double d;
            @Provides(shape = {H, 2}) float[] flat;
            @Provides(shape = {2, 3, H}, dtype = DType.FLOAT64) int[][][] cube;
            @Provides(shape = {3}, dtype = DType.UINT8) byte[] pixels;
            @Provides(shape = {3}, dtype = DType.FLOAT32) boolean[] mask;
            @Provides(shape = {2, 2}) INDArray nd;
            private float[] hidden = new float[2];
            @Provides(shape = {2}) public float[] getHidden() { return hidden; }
            @Provides(shape = {2}) private char[] kotlinStyle;
            public char[] getKotlinStyle() { return kotlinStyle; }
            @Provides(label = true, dtype = DType.FLOAT32) int y;
          }
          """,
      "Seq", """
          package test;

          import dev.minibatch.DType;
          import dev.minibatch.DataProvider;
          import dev.minibatch.Provides;

          @DataProvider
          public record Seq(
              @Provides(shape = {Provides.VARIABLE}, stepPadding = 255, dtype = DType.UINT8) byte[] bytes,
              @Provides(shape = {2, Provides.VARIABLE}, maxLength = 9, tooLong = dev.minibatch.TooLong.TRUNCATE_START,
                  dtype = DType.FLOAT32) short[][] channels,
              @Provides(shape = {Provides.VARIABLE, 3, 2}, stepPadding = Double.NaN) float[][][] cubes,
              @Provides(shape = {Provides.VARIABLE, 4}, sameLengthAs = "cubes") org.nd4j.linalg.api.ndarray.INDArray nd,
              @Provides(shape = {Provides.VARIABLE}, label = true, sameLengthAs = "bytes", stepPadding = -1) long[] tags,
              @Provides(shape = {Provides.VARIABLE}, label = true, dtype = DType.FLOAT64) boolean[] flags) {}
          """,
      "Outer", """
          package test;

          import dev.minibatch.DataProvider;
          import dev.minibatch.Provides;

          public class Outer {
            @DataProvider(batchSize = 3) public record Inner(@Provides float x, @Provides(label = true) int y) {}
          }
          """);

  /** Kotlin samples: every way a Kotlin property carries @Provides, and a data class with default values. */
  static final String KOTLIN = """
      package demo

      import dev.minibatch.DataProvider
      import dev.minibatch.Provides
      import dev.minibatch.Provides.VARIABLE

      @DataProvider(batchSize = 4)
      class Sensor(
          @field:Provides(shape = [3]) val reading: FloatArray,
          @Provides(name = "is_fault", label = true) val fault: Int,
          @get:Provides val isOn: Boolean,
      ) {
          @Provides(shape = [2, 2]) val grid: Array<FloatArray> = arrayOf(floatArrayOf(1f, 2f), floatArrayOf(3f, 4f))
      }

      class Outer {
          @DataProvider
          data class Utterance(
              @field:Provides(shape = [VARIABLE, 2]) val frames: Array<FloatArray>,
              @field:Provides(shape = [VARIABLE], label = true, sameLengthAs = "frames", stepPadding = -1.0) val phones: IntArray,
          )
      }

      @DataProvider(batchSize = 2)
      data class Setting(
          @field:Provides(shape = [2]) val gains: FloatArray = floatArrayOf(1f, 0.5f),
          @Provides val level: Double = 0.25,
          @Provides(label = true) val mode: Int = 3,
      )
      """;

  @Test
  void javaSamplesGenerateUnderKsp2TheBytesJavacGenerates() {
    Ksp2.Run ksp = Ksp2.run(JAVA.entrySet().stream().map(e -> Ksp2.java(e.getKey(), e.getValue())).toList(), Map.of());
    assertEquals(List.of(), ksp.errors());
    Compilation javac = Javac.compile(List.of(), JAVA.entrySet().stream()
        .map(e -> Javac.source("test." + e.getKey(), e.getValue())).toArray(JavaFileObject[]::new));
    assertEquals(Compilation.Status.SUCCESS, javac.status(), javac::toString);

    Map<String, String> expected = javacFiles(javac);
    // Provider, batch and shards writer per sample, and a manifest and its sample entry per sample;
    // no Kotlin DSL for a Java sample.
    assertEquals(4 * 5, expected.size(), expected::toString);
    assertEquals(expected, text(kspFiles(ksp)));
  }

  @Test
  void aKotlinSampleGeneratesUnderKsp2TheBytesKaptGenerates() throws IOException {
    Ksp2.Run ksp = Ksp2.run(List.of(Ksp2.kotlin("Sensor.kt", KOTLIN)), Map.of());
    assertEquals(List.of(), ksp.errors());

    KotlinCompilation kapt = Ksp2.kapt(List.of(Ksp2.kotlin("Sensor.kt", KOTLIN)));
    JvmCompilationResult result = kapt.compile();
    assertEquals(KotlinCompilation.ExitCode.OK, result.getExitCode(), result::getMessages);
    Map<String, String> kaptFiles = new TreeMap<>();
    for (Path root : List.of(kapt.getKaptSourceDir().toPath(), kapt.getKaptKotlinGeneratedDir().toPath())) {
      for (Path p : walk(root)) {
        kaptFiles.put(root.relativize(p).toString().replace('\\', '/'), Files.readString(p, StandardCharsets.UTF_8));
      }
    }
    Path classes = result.getOutputDirectory().toPath();
    for (Path p : walk(classes.resolve("META-INF").resolve("minibatch"))) {
      kaptFiles.put(classes.relativize(p).toString().replace('\\', '/'), Files.readString(p, StandardCharsets.ISO_8859_1));
    }
    // Per sample: batch, provider, shards writer (minibatch-shards is on the class path), the Kotlin
    // DSL (minibatch-kotlin is), a manifest and its sample entry.
    assertEquals(List.of("META-INF/minibatch/demo.Outer_UtteranceProvider.properties",
        "META-INF/minibatch/demo.SensorProvider.properties", "META-INF/minibatch/demo.SettingProvider.properties",
        "META-INF/minibatch/samples/demo.Outer.Utterance.properties",
        "META-INF/minibatch/samples/demo.Sensor.properties", "META-INF/minibatch/samples/demo.Setting.properties",
        "demo/Outer_UtteranceBatch.java", "demo/Outer_UtteranceProvider.java", "demo/Outer_UtteranceProviderDsl.kt",
        "demo/Outer_UtteranceShards.java",
        "demo/SensorBatch.java", "demo/SensorProvider.java", "demo/SensorProviderDsl.kt", "demo/SensorShards.java",
        "demo/SettingBatch.java", "demo/SettingProvider.java", "demo/SettingProviderDsl.kt", "demo/SettingShards.java"),
        List.copyOf(kaptFiles.keySet()));
    assertTrue(kaptFiles.get("demo/SensorBatch.java").contains("public INDArray getOn()"));
    // The DSL has every source the Java builder has, the shard sets' included.
    assertTrue(kaptFiles.get("demo/SensorProviderDsl.kt").contains("public fun shards(location: String)"));
    assertTrue(kaptFiles.get("demo/Outer_UtteranceProviderDsl.kt").contains("public fun buckets(vararg bounds: Int)"));
    assertEquals(kaptFiles, text(kspFiles(ksp)));
  }

  /** What javac's processor generated: sources by package path, resources by class-path path. */
  private static Map<String, String> javacFiles(Compilation c) {
    Map<String, String> out = new TreeMap<>();
    for (JavaFileObject f : c.generatedFiles()) {
      String path = f.toUri().getPath();
      String rel;
      if (path.startsWith("/SOURCE_OUTPUT/")) {
        rel = path.substring("/SOURCE_OUTPUT/".length());
      } else if (path.startsWith("/CLASS_OUTPUT/META-INF/minibatch/")) {
        rel = path.substring("/CLASS_OUTPUT/".length());
      } else {
        continue;
      }
      try (InputStream in = f.openInputStream()) {
        out.put(rel, new String(in.readAllBytes(), rel.endsWith(".java") ? StandardCharsets.UTF_8
            : StandardCharsets.ISO_8859_1));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  /** What KSP's run wrote, by the same relative paths as {@link #javacFiles}. */
  private static Map<String, byte[]> kspFiles(Ksp2.Run run) {
    Map<String, byte[]> out = new TreeMap<>();
    run.generated().forEach((k, v) -> {
      if (k.startsWith("java/")) {
        out.put(k.substring("java/".length()), v);
      } else if (k.startsWith("kotlin/")) {
        out.put(k.substring("kotlin/".length()), v);
      } else if (k.startsWith("resources/")) {
        out.put(k.substring("resources/".length()), v);
      }
    });
    return out;
  }

  /** The files' text: sources UTF-8, resources ISO-8859-1, so a byte difference is a text difference. */
  private static Map<String, String> text(Map<String, byte[]> files) {
    Map<String, String> out = new TreeMap<>();
    files.forEach((k, v) -> out.put(k, new String(v, k.endsWith(".java") || k.endsWith(".kt") ? StandardCharsets.UTF_8
        : StandardCharsets.ISO_8859_1)));
    return out;
  }

  private static List<Path> walk(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(Files::isRegularFile).sorted().toList();
    }
  }
}
