package dev.minibatch.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import dev.minibatch.processor.cases.DiagnosticCase;
import dev.minibatch.processor.cases.DiagnosticCases;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One compile per case of {@link DiagnosticCases} (shared with the KSP2 processor's tests): the
 * exact error count, the stable IDs in the order reported, the file and the line (the annotation
 * value where javac can point at it), and the text. No case may see generated code for the broken
 * type.
 */
class DiagnosticsTest {
  static Stream<Named<DiagnosticCase>> cases() {
    return DiagnosticCases.all().stream().map(c -> Named.of(c.name(), c));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void javacReportsEachErrorOfTheCaseOnItsLine(DiagnosticCase dc) {
    JavaFileObject[] sources = dc.sources().stream()
        .map(s -> Sources.source(s.simpleName(), s.lines().toArray(new String[0])))
        .toArray(JavaFileObject[]::new);
    String[] options = dc.options().stream().map(o -> "-A" + o).toArray(String[]::new);
    Compilation c = options.length == 0 ? Sources.compile(sources) : Sources.compile(options, sources);
    assertThat(c).failed();
    if (!dc.compilerErrorsToo()) {
      assertThat(c).hadErrorCount(dc.errors().size());
    }
    List<String> ours = c.errors().stream().map(d -> d.getMessage(Locale.ROOT))
        .filter(m -> m.startsWith("[minibatch/")).map(m -> m.substring(0, m.indexOf(']') + 1)).toList();
    assertThat(ours).containsExactlyElementsIn(dc.errors().stream().map(DiagnosticCase.Expected::tag).toList())
        .inOrder();
    for (DiagnosticCase.Expected e : dc.errors()) {
      if (e.source() == null) {
        Diagnostic<? extends JavaFileObject> d = c.errors().stream()
            .filter(x -> x.getMessage(Locale.ROOT).startsWith(e.tag())).findFirst().orElseThrow();
        assertThat(d.getSource()).isNull();
      } else {
        assertThat(c).hadErrorContaining(e.tag()).inFile(sources[dc.sources().indexOf(e.source())])
            .onLineContaining(e.lineContaining());
      }
      for (String text : e.texts()) {
        assertThat(c.errors().stream().map(d -> d.getMessage(Locale.ROOT))
            .anyMatch(m -> m.startsWith(e.tag()) && m.contains(text))).isTrue();
      }
    }
    assertThat(Sources.generatedWhenFailing(options, sources)).containsExactlyElementsIn(dc.generated());
  }
}
