package dev.minibatch.processor.ksp;

import com.tschuchort.compiletesting.JvmCompilationResult;
import com.tschuchort.compiletesting.KotlinCompilation;
import com.tschuchort.compiletesting.KspKt;
import com.tschuchort.compiletesting.Ksp2Kt;
import com.tschuchort.compiletesting.SourceFile;
import dev.minibatch.processor.MinibatchProcessor;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs KSP2 in-process (Kotlin compile-testing, kctfork) with the minibatch processor on Java or
 * Kotlin sources, and reads back what a user would see: KSP's error lines and the files written.
 */
final class Ksp2 {
  /** KSP's error lines as kctfork collects them: {@code e: [ksp] /path/File.java:12: message}. */
  private static final Pattern ERROR = Pattern.compile("(?m)^e: \\[ksp\\] (?:(.+?):(\\d+): )?(.*)$");

  private Ksp2() {}

  /**
   * One error KSP reported.
   *
   * @param file the file name ({@code S.java}); null when reported without a position
   * @param line its 1-based line; -1 without a position
   * @param message the message's first line
   */
  record Error(String file, int line, String message) {}

  /**
   * A run's result.
   *
   * @param result kctfork's result
   * @param errors KSP's errors, in the order reported
   * @param generated the files KSP's processors wrote, by path relative to the output root ({@code
   *     java/test/DigitProvider.java}, {@code resources/META-INF/...}), with their bytes
   */
  record Run(JvmCompilationResult result, List<Error> errors, Map<String, byte[]> generated) {
    /** The generated Java sources, by path relative to the Java output ({@code test/DigitProvider.java}). */
    Map<String, byte[]> javaSources() {
      Map<String, byte[]> out = new TreeMap<>();
      generated.forEach((k, v) -> {
        if (k.startsWith("java/")) {
          out.put(k.substring("java/".length()), v);
        }
      });
      return out;
    }
  }

  static SourceFile java(String simpleName, String text) {
    return SourceFile.Companion.java(simpleName + ".java", text, true);
  }

  static SourceFile kotlin(String fileName, String text) {
    return SourceFile.Companion.kotlin(fileName, text, true);
  }

  /**
   * A Kotlin compilation of {@code sources} against the test class path, silent, in a working
   * directory under the module's {@code target/}: kctfork's default is a fresh directory in the
   * system's temporary directory per compilation, which nothing deletes.
   */
  static KotlinCompilation compilation(List<SourceFile> sources) {
    KotlinCompilation c = new KotlinCompilation();
    c.setWorkingDir(workingDir());
    c.setSources(sources);
    c.setInheritClassPath(true);
    c.setJvmTarget("17");
    c.setMessageOutputStream(java.io.OutputStream.nullOutputStream());
    return c;
  }

  /** {@link #compilation} with the minibatch processor under kapt. */
  static KotlinCompilation kapt(List<SourceFile> sources) {
    KotlinCompilation c = compilation(sources);
    c.setAnnotationProcessors(List.of(new MinibatchProcessor()));
    return c;
  }

  /** Runs KSP2 with the minibatch processor, then compiles everything (unless KSP reported an error). */
  static Run run(List<SourceFile> sources, Map<String, String> options) {
    KotlinCompilation c = compilation(sources);
    Ksp2Kt.useKsp2(c);
    KspKt.setSymbolProcessorProviders(c, List.of(new MinibatchSymbolProcessorProvider()));
    KspKt.setKspProcessorOptions(c, new java.util.HashMap<>(options));
    JvmCompilationResult result = c.compile();
    List<Error> errors = new ArrayList<>();
    Matcher m = ERROR.matcher(result.getMessages());
    while (m.find()) {
      errors.add(m.group(1) == null ? new Error(null, -1, m.group(3))
          : new Error(Path.of(m.group(1)).getFileName().toString(), Integer.parseInt(m.group(2)), m.group(3)));
    }
    return new Run(result, errors, files(KspKt.getKspSourcesDir(c)));
  }

  /** A fresh directory under {@code target/kotlin-compilations} (Maven runs tests in the module's directory). */
  private static File workingDir() {
    try {
      Path root = Files.createDirectories(Path.of("target", "kotlin-compilations"));
      return Files.createTempDirectory(root, "compilation").toFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, byte[]> files(File root) {
    Map<String, byte[]> out = new TreeMap<>();
    if (!root.exists()) {
      return out;
    }
    try (Stream<Path> all = Files.walk(root.toPath())) {
      for (Path p : all.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).toList()) {
        out.put(root.toPath().relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
