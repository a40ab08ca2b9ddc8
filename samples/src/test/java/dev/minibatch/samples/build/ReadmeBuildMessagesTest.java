package dev.minibatch.samples.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two build mistakes the README's Maven setup warns about, made in a fresh project by the real
 * Maven that runs this build: the README's Quickstart pom without the compiler plugin's version,
 * and without the processor. The messages the README quotes must be the ones Maven prints.
 *
 * <p>The fresh project has the README's sample and pom; minibatch comes from this build's own api
 * jar (a system-scoped dependency), so nothing needs to be installed first.
 */
class ReadmeBuildMessagesTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private static String readme() throws IOException {
    return Files.readString(ROOT.resolve("README.md"));
  }

  /** The README's first fenced block of {@code language} after the heading {@code heading}. */
  private static String block(String readme, String heading, String language) {
    int at = readme.indexOf(heading);
    int open = readme.indexOf("```" + language + "\n", at);
    int close = readme.indexOf("\n```", open + 4);
    return readme.substring(open + 4 + language.length(), close + 1);
  }

  /** The Quickstart project, its pom changed by {@code edit}, built with {@code mvn compile}. */
  private static Result build(Path dir, java.util.function.UnaryOperator<String> edit) throws Exception {
    String readme = readme();
    String pom = block(readme, "## Maven setup", "xml");
    // minibatch from this build (the api is all the sample needs to compile) instead of the installed runtime.
    Path api = Files.list(ROOT.resolve("api/target"))
        .filter(p -> p.getFileName().toString().matches("minibatch-api-[^-]+(-SNAPSHOT)?\\.jar")).findFirst().orElseThrow();
    pom = pom.replaceAll("(?s)<dependencies>.*</dependencies>", "<dependencies><dependency><groupId>dev.minibatch</groupId>"
        + "<artifactId>minibatch-api</artifactId><version>0</version><scope>system</scope><systemPath>" + api
        + "</systemPath></dependency></dependencies>");
    Files.writeString(dir.resolve("pom.xml"), edit.apply(pom));
    Path src = Files.createDirectories(dir.resolve("src/main/java/demo"));
    Files.writeString(src.resolve("Digit.java"), block(readme, "## Quickstart", "java"));
    Files.writeString(src.resolve("Train.java"), "package demo;\n\nclass Train {\n  DigitProvider provider;\n}\n");
    List<String> command = new ArrayList<>(List.of("mvn", "-B", "-ntp", "-q", "compile"));
    String repository = System.getProperty("maven.repo.local");
    if (repository != null) {
      command.add("-Dmaven.repo.local=" + repository);
    }
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "mvn did not finish");
    return new Result(p.exitValue(), out);
  }

  private record Result(int code, String out) {}

  @Test
  void withoutTheCompilerPluginsVersionMavenStopsAtTheMessageTheReadmeQuotes(@TempDir Path dir) throws Exception {
    Result r = build(dir, pom -> pom.replaceFirst("(?s)(<artifactId>maven-compiler-plugin</artifactId>.*?)<version>[^<]*</version>",
        "$1"));
    assertNotEquals(0, r.code(), r.out());
    Matcher quoted = Pattern.compile("the build stops at \"([^\"]+)\"").matcher(readme());
    assertTrue(quoted.find(), "the README quotes the message in its pom comment");
    assertEquals("Source option 5 is no longer supported. Use 7 or later.", quoted.group(1));
    assertTrue(r.out().contains(quoted.group(1)), r.out());
  }

  @Test
  void withoutTheProcessorJavacOnlyMissesTheGeneratedTypesAsTheReadmeShows(@TempDir Path dir) throws Exception {
    Result r = build(dir, pom -> pom.replaceFirst("(?s)<annotationProcessorPaths>.*</annotationProcessorPaths>", ""));
    assertNotEquals(0, r.code(), r.out());
    String shown = block(readme(), "If the processor does not run", "text");
    for (String line : List.of("cannot find symbol", "symbol:   class DigitProvider")) {
      assertTrue(shown.contains(line), "README shows " + line);
      assertTrue(r.out().contains(line), r.out());
    }
    assertTrue(!r.out().contains("[minibatch/"), "no minibatch diagnostic without the processor: " + r.out());
  }
}
