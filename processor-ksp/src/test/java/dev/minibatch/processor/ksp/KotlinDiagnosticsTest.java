package dev.minibatch.processor.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tschuchort.compiletesting.JvmCompilationResult;
import com.tschuchort.compiletesting.KotlinCompilation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jetbrains.kotlin.kapt.base.KaptFlag;
import org.junit.jupiter.api.Test;

/**
 * Bad Kotlin samples, all in one file, under kapt (the javac processor on kapt's stubs, diagnostics
 * mapped back to the Kotlin source) and under KSP2: the same errors, ID, text and line, each on
 * the line the sample's property or class is declared. Among them the Kotlin member shapes Java's
 * view hides: nullable types, value classes (unsigned arrays and numbers, a {@code @JvmInline value
 * class}), a {@code List} of arrays and a sealed interface as a label.
 */
class KotlinDiagnosticsTest {
  static final String BAD = """
      package bad

      import dev.minibatch.DType
      import dev.minibatch.DataProvider
      import dev.minibatch.Provides
      import org.nd4j.linalg.api.ndarray.INDArray

      @DataProvider
      class ZeroDim(@field:Provides(shape = [3, 0]) val x: Array<FloatArray>)

      @DataProvider
      class Boxed(@Provides val x: Float?)

      @DataProvider
      class NoShape(@field:Provides val x: FloatArray)

      @DataProvider
      class Narrowed(@field:Provides(shape = [2], dtype = DType.INT8) val x: FloatArray)

      @DataProvider
      class OnlyLabels(@Provides(label = true) val y: Int)

      @DataProvider
      interface NotAClass

      class Outer {
          @DataProvider
          inner class Inner(@Provides val x: Float)
      }

      @DataProvider
      class Reading(@field:Provides(shape = [3]) val values: FloatArray?)

      @DataProvider
      class Grid(@Provides(shape = [2, 2]) val cells: INDArray?)

      @DataProvider
      class Frames(@field:Provides(shape = [Provides.VARIABLE, 2]) val frames: List<FloatArray>)

      @OptIn(ExperimentalUnsignedTypes::class)
      @DataProvider
      class Pixels(@field:Provides(shape = [3]) val px: UByteArray)

      @DataProvider
      class Count(@Provides val n: UInt, @Provides val x: Float)

      @JvmInline
      value class Label(val id: Int)

      @DataProvider
      class Labelled(@Provides val x: Float, @Provides(label = true) val y: Label)

      sealed interface Weather {
          data object Sun : Weather
          data object Rain : Weather
      }

      @DataProvider
      class Day(@Provides val x: Float, @Provides(label = true) val weather: Weather)

      @DataProvider
      class Tagged(@Provides val x: Float, @get:Provides(label = true) val y: UInt)
      """;

  /**
   * One expected error.
   *
   * @param id the ID
   * @param on a fragment of the line it is on (the property's, or the class's for an error about it)
   * @param aboveOn true when it is on the line above ({@code @DataProvider} of the class)
   * @param texts fragments of its text
   */
  record Expected(String id, String on, boolean aboveOn, List<String> texts) {
    static Expected at(String id, String on, String... texts) {
      return new Expected(id, on, false, List.of(texts));
    }

    static Expected above(String id, String on, String... texts) {
      return new Expected(id, on, true, List.of(texts));
    }
  }

  /** The errors in the file's order. */
  static final List<Expected> EXPECTED = List.of(
      Expected.at("ShapeDim", "class ZeroDim"),
      Expected.at("NullableMember", "class Boxed", "has the nullable type Float?", "Declare it Float, with a default value"),
      Expected.at("MissingShape", "class NoShape"),
      Expected.at("DTypeMismatch", "class Narrowed"),
      Expected.above("NoData", "class OnlyLabels"),
      Expected.above("NotAClass", "interface NotAClass"),
      Expected.above("NoData", "interface NotAClass"),
      Expected.above("InnerClass", "inner class Inner"),
      Expected.at("NullableMember", "class Reading", "field 'values' has the nullable type FloatArray?",
          "Declare it FloatArray"),
      Expected.at("NullableMember", "class Grid", "the nullable type INDArray?", "Declare it INDArray"),
      Expected.at("UnsupportedType", "class Frames", "has type java.util.List<float[]>",
          "use the array float[][] (Array<FloatArray> in Kotlin), with VARIABLE on the axis"),
      Expected.at("ValueClass", "class Pixels", "field 'px' has type UByteArray, a Kotlin value class",
          "getter (getPx-", "Declare it ByteArray with dtype = DType.UINT8"),
      Expected.at("ValueClass", "class Count", "field 'n' has type UInt", "getter (getN-", "Declare it Long"),
      Expected.at("ValueClass", "class Labelled", "field 'y' has type Label", "getter (getY-",
          "Provide the value it wraps instead (stored as int)"),
      Expected.at("UnsupportedType", "class Day", "has type bad.Weather",
          "provided as an int class index"),
      Expected.at("ValueClass", "class Tagged", "method 'getY-", "has type UInt", "Declare it Long"));

  /** kapt's error lines, mapped to the Kotlin source: {@code e: /path/Bad.kt:8: error: [minibatch/ShapeDim] ...}. */
  private static final Pattern KAPT_ERROR = Pattern.compile("(?m)^e: (\\S+?\\.kt):(\\d+): error: (\\[minibatch/.*)$");

  @Test
  void kaptAndKsp2ReportTheSameErrorsOnTheSameLines() {
    List<Ksp2.Error> ours = kspErrors(BAD);
    Kapt kapt = kapt(BAD);

    List<String> lines = BAD.lines().toList();
    List<Ksp2.Error> expected = new ArrayList<>();
    assertEquals(EXPECTED.size(), ours.size(), () -> "KSP2: " + ours);
    for (int i = 0; i < EXPECTED.size(); i++) {
      Expected e = EXPECTED.get(i);
      int line = 0;
      while (!lines.get(line).contains(e.on())) {
        line++;
      }
      if (e.aboveOn()) {
        line--; // the class's @DataProvider
      }
      Ksp2.Error got = ours.get(i);
      assertTrue(got.message().startsWith("[minibatch/" + e.id() + "] "), () -> e.id() + " expected, KSP2: " + ours);
      for (String text : e.texts()) {
        assertTrue(got.message().contains(text), () -> "'" + text + "' expected in " + got.message());
      }
      expected.add(new Ksp2.Error("Bad.kt", line + 1, got.message()));
    }
    assertEquals(expected, ours);
    assertEquals(ours, kapt.errors(), kapt.result()::getMessages);
  }

  /**
   * The one place the front ends differ: a value-class property without a backing field, whose
   * getter carries the annotation. kapt's stub has no member for it at all (it leaves the mangled
   * getter out), so the javac processor learns of it from the class's metadata and reports the same
   * error on the class's line, where KSP2 reports it on the getter's.
   */
  @Test
  void aValueClassGetterWithoutAFieldIsReportedOnTheClassUnderKapt() {
    String source = """
        package bad

        import dev.minibatch.DataProvider
        import dev.minibatch.Provides

        @DataProvider
        class Computed(@Provides val x: Float) {
            @get:Provides(label = true) val y: UInt get() = x.toUInt()
        }
        """;
    List<Ksp2.Error> ksp = kspErrors(source);
    assertEquals(1, ksp.size(), ksp::toString);
    assertEquals(8, ksp.get(0).line());
    assertTrue(ksp.get(0).message().startsWith("[minibatch/ValueClass] @Provides method 'getY-"), ksp::toString);
    assertTrue(ksp.get(0).message().contains("has type UInt"), ksp::toString);

    Kapt kapt = kapt(source);
    assertEquals(List.of(new Ksp2.Error("Bad.kt", 6, ksp.get(0).message())), kapt.errors(),
        kapt.result()::getMessages);
  }

  private static List<Ksp2.Error> kspErrors(String source) {
    Ksp2.Run ksp = Ksp2.run(List.of(Ksp2.kotlin("Bad.kt", source)), Map.of());
    List<Ksp2.Error> ours = new ArrayList<>(ksp.errors().stream().filter(e -> e.message().startsWith("[minibatch/"))
        .toList());
    ours.sort(Comparator.comparingInt(Ksp2.Error::line));
    return ours;
  }

  /** A kapt run: the processor's errors by line, and where its Java sources went. */
  record Kapt(JvmCompilationResult result, List<Ksp2.Error> errors, Path sources) {}

  private static Kapt kapt(String source) {
    KotlinCompilation kapt = Ksp2.kapt(List.of(Ksp2.kotlin("Bad.kt", source)));
    kapt.setKaptFlags(Set.of(KaptFlag.MAP_DIAGNOSTIC_LOCATIONS));
    JvmCompilationResult result = kapt.compile();
    List<Ksp2.Error> errors = new ArrayList<>();
    Matcher m = KAPT_ERROR.matcher(result.getMessages());
    while (m.find()) {
      errors.add(new Ksp2.Error(Path.of(m.group(1)).getFileName().toString(), Integer.parseInt(m.group(2)),
          m.group(3)));
    }
    errors.sort(Comparator.comparingInt(Ksp2.Error::line));
    return new Kapt(result, errors, kapt.getKaptSourceDir().toPath());
  }
}
