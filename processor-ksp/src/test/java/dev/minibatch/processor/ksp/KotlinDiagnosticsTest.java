package dev.minibatch.processor.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tschuchort.compiletesting.JvmCompilationResult;
import com.tschuchort.compiletesting.KotlinCompilation;
import dev.minibatch.processor.MinibatchProcessor;
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
 * the line the sample's property or class is declared.
 */
class KotlinDiagnosticsTest {
  static final String BAD = """
      package bad

      import dev.minibatch.DType
      import dev.minibatch.DataProvider
      import dev.minibatch.Provides

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
      """;

  /**
   * Each error's ID and a fragment of the line it is on, in the file's order; errors about a class
   * are on its {@code @DataProvider}, the line above the fragment.
   */
  static final List<List<String>> EXPECTED = List.of(
      List.of("ShapeDim", "class ZeroDim"),
      List.of("UnsupportedType", "class Boxed"),
      List.of("MissingShape", "class NoShape"),
      List.of("DTypeMismatch", "class Narrowed"),
      List.of("NoData", "@DataProvider", "class OnlyLabels"),
      List.of("NotAClass", "@DataProvider", "interface NotAClass"),
      List.of("NoData", "@DataProvider", "interface NotAClass"),
      List.of("InnerClass", "@DataProvider", "inner class Inner"));

  /** kapt's error lines, mapped to the Kotlin source: {@code e: /path/Bad.kt:8: error: [minibatch/ShapeDim] ...}. */
  private static final Pattern KAPT_ERROR = Pattern.compile("(?m)^e: (\\S+?\\.kt):(\\d+): error: (\\[minibatch/.*)$");

  @Test
  void kaptAndKsp2ReportTheSameErrorsOnTheSameLines() {
    Ksp2.Run ksp = Ksp2.run(List.of(Ksp2.kotlin("Bad.kt", BAD)), Map.of());
    List<Ksp2.Error> ours = new ArrayList<>(ksp.errors().stream().filter(e -> e.message().startsWith("[minibatch/"))
        .toList());
    ours.sort(Comparator.comparingInt(Ksp2.Error::line));

    KotlinCompilation kapt = new KotlinCompilation();
    kapt.setSources(List.of(Ksp2.kotlin("Bad.kt", BAD)));
    kapt.setInheritClassPath(true);
    kapt.setJvmTarget("17");
    kapt.setMessageOutputStream(java.io.OutputStream.nullOutputStream());
    kapt.setAnnotationProcessors(List.of(new MinibatchProcessor()));
    kapt.setKaptFlags(Set.of(KaptFlag.MAP_DIAGNOSTIC_LOCATIONS));
    JvmCompilationResult result = kapt.compile();
    List<Ksp2.Error> kaptErrors = new ArrayList<>();
    Matcher m = KAPT_ERROR.matcher(result.getMessages());
    while (m.find()) {
      kaptErrors.add(new Ksp2.Error(java.nio.file.Path.of(m.group(1)).getFileName().toString(),
          Integer.parseInt(m.group(2)), m.group(3)));
    }
    kaptErrors.sort(Comparator.comparingInt(Ksp2.Error::line));

    List<String> lines = BAD.lines().toList();
    List<Ksp2.Error> expected = new ArrayList<>();
    for (int i = 0; i < EXPECTED.size(); i++) {
      String id = EXPECTED.get(i).get(0);
      String on = EXPECTED.get(i).get(EXPECTED.get(i).size() - 1);
      int line = 0;
      while (!lines.get(line).contains(on)) {
        line++;
      }
      if (EXPECTED.get(i).size() == 3) {
        line--; // the class's @DataProvider
      }
      assertEquals("[minibatch/" + id + "]", ours.get(i).message().substring(0, ours.get(i).message().indexOf(']') + 1),
          () -> "KSP2: " + ours);
      expected.add(new Ksp2.Error("Bad.kt", line + 1, ours.get(i).message()));
    }
    assertEquals(expected, ours);
    assertEquals(ours, kaptErrors, result::getMessages);
  }
}
