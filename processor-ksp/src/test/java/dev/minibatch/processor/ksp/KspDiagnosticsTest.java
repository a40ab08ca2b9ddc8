package dev.minibatch.processor.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.processor.cases.DiagnosticCase;
import dev.minibatch.processor.cases.DiagnosticCases;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The javac processor's diagnostics suite ({@link DiagnosticCases}) under KSP2, one KSP2 run per
 * case: the same errors as javac gives for the same sources — ID, full text, file and line, in the
 * same order — each also checked against the case's own expectation, and no generated file for
 * a broken type.
 *
 * <p>One difference is allowed, and listed in {@link #MEMBER_LINE}: KSP2 gives the annotations on
 * a Java record's components, and their values, no source location, so an error about such a
 * value is reported on the component's line (its name), where javac points at the value.
 */
class KspDiagnosticsTest {
  /**
   * The cases whose error KSP2 reports on the record component's line, not the value's line: the
   * line KSP2 points at. Every other case is on javac's line.
   */
  static final Map<String, String> MEMBER_LINE = Map.of("negativeMaxLength_recordValueOnItsOwnLine", "float[] x");

  static Stream<Named<DiagnosticCase>> cases() {
    return DiagnosticCases.all().stream().map(c -> Named.of(c.name(), c));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void ksp2ReportsWhatJavacReports(DiagnosticCase dc) {
    Ksp2.Run run = Ksp2.run(dc.sources().stream().map(s -> Ksp2.java(s.simpleName(), s.text())).toList(),
        dc.options().stream().collect(Collectors.toMap(o -> o.substring(0, o.indexOf('=')),
            o -> o.substring(o.indexOf('=') + 1))));
    List<Ksp2.Error> ksp = run.errors().stream().filter(e -> e.message().startsWith("[minibatch/")).toList();
    List<Ksp2.Error> javac = Javac.errors(Javac.compile(dc.options(), dc.sources().stream()
        .map(s -> Javac.source("test." + s.simpleName(), s.text())).toArray(JavaFileObject[]::new)));

    // The case's own expectation, independent of either front end.
    assertEquals(dc.errors().size(), ksp.size(), () -> "errors: " + ksp);
    List<Ksp2.Error> expectedLines = new ArrayList<>();
    for (int i = 0; i < dc.errors().size(); i++) {
      DiagnosticCase.Expected e = dc.errors().get(i);
      Ksp2.Error got = ksp.get(i);
      assertTrue(got.message().startsWith(e.tag() + " "), () -> e.tag() + " expected, got " + got);
      for (String text : e.texts()) {
        assertTrue(got.message().contains(text), () -> "'" + text + "' expected in " + got.message());
      }
      String line = MEMBER_LINE.getOrDefault(dc.name(), e.lineContaining());
      expectedLines.add(e.source() == null ? new Ksp2.Error(null, -1, got.message())
          : new Ksp2.Error(e.source().simpleName() + ".java", e.source().lineContaining(line), got.message()));
    }
    assertEquals(expectedLines, ksp);

    // Exactly javac's errors, but for the listed line differences.
    List<Ksp2.Error> javacAdjusted = new ArrayList<>();
    for (int i = 0; i < javac.size(); i++) {
      Ksp2.Error j = javac.get(i);
      javacAdjusted.add(MEMBER_LINE.containsKey(dc.name()) ? new Ksp2.Error(j.file(), expectedLines.get(i).line(),
          j.message()) : j);
    }
    assertEquals(javacAdjusted, ksp);
    assertEquals(withShards(dc.generated()), List.copyOf(run.javaSources().keySet()));
  }

  /**
   * What a case generates with minibatch-shards on the class path, as it is on this module's (for
   * the shard-set sources of the end-to-end test): beside each provider, its {@code <Sample>Shards}.
   */
  private static List<String> withShards(List<String> generated) {
    List<String> out = new ArrayList<>(generated);
    for (String f : generated) {
      if (f.endsWith("Provider.java")) {
        out.add(f.substring(0, f.length() - "Provider.java".length()) + "Shards.java");
      }
    }
    out.sort(null);
    return out;
  }
}
