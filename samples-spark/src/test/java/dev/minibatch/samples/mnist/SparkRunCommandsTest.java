package dev.minibatch.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The commands docs/spark.md gives for the Spark sample are the ones this module's pom runs, and the
 * local run works as the pom starts it: its java command line (Spark's add-opens, the compile class
 * path, which holds the provided Spark) trains and prints one line per epoch. A new user found the
 * page's earlier commands failing; this keeps page and pom from drifting apart again.
 */
class SparkRunCommandsTest {
  private static final Path MODULE = Path.of("").toAbsolutePath();
  private static final Path SPARK_MD = MODULE.resolveSibling("docs").resolve("spark.md");

  private static String property(String name) {
    String value = System.getProperty(name);
    assertNotNull(value, "system property " + name + " (set by this module's surefire)");
    return value;
  }

  private static String page() throws IOException {
    return Files.readString(SPARK_MD, StandardCharsets.UTF_8);
  }

  /** The first fenced bash block of docs/spark.md whose text contains {@code marker}. */
  private static String bashBlock(String page, String marker) {
    Matcher m = Pattern.compile("```bash\n(.*?)```", Pattern.DOTALL).matcher(page);
    while (m.find()) {
      if (m.group(1).contains(marker)) {
        return m.group(1);
      }
    }
    throw new AssertionError("docs/spark.md has no bash block containing " + marker);
  }

  /** This module's exec configuration in profile {@code run}. */
  private static Element runProfileExecution() throws Exception {
    var pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(MODULE.resolve("pom.xml").toFile());
    var profiles = pom.getElementsByTagName("profile");
    for (int i = 0; i < profiles.getLength(); i++) {
      Element profile = (Element) profiles.item(i);
      if ("run".equals(child(profile, "id").getTextContent().trim())) {
        return (Element) profile.getElementsByTagName("execution").item(0);
      }
    }
    throw new AssertionError("samples-spark/pom.xml has no profile 'run'");
  }

  private static Element child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    throw new AssertionError("<" + parent.getTagName() + "> has no <" + name + ">");
  }

  @Test
  void theLocalRunCommandRunsThisModulesRunProfileAfterPackage() throws Exception {
    String block = bashBlock(page(), "-Prun");
    assertTrue(block.contains("-pl samples-spark -am"), "the local run builds samples-spark and what it needs: " + block);
    assertTrue(Pattern.compile("-Prun\\b.*\\bpackage\\b").matcher(block).find(),
        "the run profile's execution is bound to package, so the command must reach package: " + block);
    Element execution = runProfileExecution();
    assertEquals("package", child(execution, "phase").getTextContent().trim());
    // Maven's compile class path holds provided dependencies (Spark); the runtime one does not.
    assertEquals("compile", child(child(execution, "configuration"), "classpathScope").getTextContent().trim());
  }

  @Test
  void theSparkSubmitRecipeBuildsThisModuleAndNamesItsJar() throws IOException {
    String block = bashBlock(page(), "spark-submit");
    assertTrue(block.contains("-pl samples-spark -am -DskipTests package dependency:build-classpath"),
        "the recipe builds samples-spark and writes its class path in the same reactor: " + block);
    // The dependency plugin reads includeScope; it ignores mdep.includeScope and would list Spark too.
    assertTrue(block.contains("-DincludeScope=runtime") && !block.contains("mdep.includeScope"),
        "the recipe's --jars are samples-spark's runtime class path (Spark excluded): " + block);
    assertTrue(block.contains("samples-spark/target/" + property("minibatch.finalName") + ".jar"),
        "the recipe names this module's jar, " + property("minibatch.finalName") + ".jar: " + block);
    assertTrue(block.contains("--class " + TrainMnistSpark.class.getName()), block);
  }

  /** Starts the JVM exactly as the run profile does, with the test's class path for %classpath. */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theSampleRunsAsTheRunProfileStartsItAndPrintsOneLinePerEpoch() throws Exception {
    Element config = child(runProfileExecution(), "configuration");
    String executable = child(config, "executable").getTextContent().trim()
        .replace("${java.home}", System.getProperty("java.home"));
    String args = child(config, "commandlineArgs").getTextContent().trim()
        .replace("${spark.addOpens}", property("minibatch.sparkAddOpens"))
        .replace("%classpath", property("surefire.test.class.path"))
        // 2000 digits, one epoch, two rounds: the run, not the learning (TrainMnistSparkTest has that).
        .replace("${main.args}", "--trainers 2 --epochs 1 --rounds 2 --train-limit 2000");
    List<String> command = new ArrayList<>();
    command.add(executable);
    command.addAll(List.of(args.split("\\s+")));
    Path out = Files.createTempFile("train-mnist-spark", ".out");
    Path err = Files.createTempFile("train-mnist-spark", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().put("OMP_NUM_THREADS", child(child(config, "environmentVariables"), "OMP_NUM_THREADS")
          .getTextContent().trim());
      Process p = pb.start();
      assertTrue(p.waitFor(3, TimeUnit.MINUTES), "the sample did not end within 3 minutes");
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertEquals(0, p.exitValue(), "exit status; stderr:\n" + stderr);
      // DISCARD: floor(2000 / 64) = 31 batches of 64 digits; 2 trainers x 2 rounds each fit.
      assertTrue(stdout.matches("epoch 1: 1984 digits by 4 trainer rounds in \\d+\\.\\d s, held-out loss \\d+\\.\\d{3}, "
          + "accuracy \\d+\\.\\d{2}%\n"), "standard output should be exactly one line per epoch, was:\n" + stdout
          + "\nstderr:\n" + stderr);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
