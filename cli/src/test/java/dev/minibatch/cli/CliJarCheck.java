package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged tool, checked after {@code package} (surefire's {@code jar-check} execution in
 * cli/pom.xml): one jar in target/, natives of the build's platform only, no Python, the two
 * vocabularies tokenize offers, the size the docs give, and bin/minibatch running it with its output in
 * a pipe (not a terminal).
 */
class CliJarCheck {
  static final Path JAR = Path.of(System.getProperty("cli.jar", "target/minibatch.jar"));
  static final Path LAUNCHER = Path.of("bin/minibatch");
  static final Path DOCS = Path.of("../docs/cli.md");

  @TempDir Path dir;

  /** The folders that hold this platform's natives, in each bundling library's own naming. */
  static List<String> platformFolders() {
    return List.of(
        "/" + System.getProperty("cli.platform", "linux-x86_64") + "/",
        "com/sun/jna/" + System.getProperty("cli.platform.jna", "linux-x86-64") + "/",
        "net/jpountz/util/" + System.getProperty("cli.platform.lz4", "linux/amd64") + "/",
        "org/jline/nativ/" + System.getProperty("cli.platform.jline", "Linux/x86_64") + "/",
        System.getProperty("cli.platform.zstd", "linux/amd64") + "/libzstd-jni",
        "org/xerial/snappy/native/" + System.getProperty("cli.platform.snappy", "Linux/x86_64") + "/");
  }

  static boolean isNative(String name) {
    return name.matches(".*\\.(so(\\.[0-9]+)*|dll|dylib|jnilib|a)$");
  }

  static List<String> entries() throws IOException {
    List<String> names = new ArrayList<>();
    try (ZipFile zip = new ZipFile(JAR.toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        names.add(e.nextElement().getName());
      }
    }
    return names;
  }

  @Test
  void targetHoldsOneJarToRun() throws IOException {
    try (Stream<Path> files = Files.list(JAR.getParent())) {
      List<String> jars = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).sorted().toList();
      assertEquals(List.of("minibatch.jar"), jars, "target/ must hold minibatch.jar only (no original-*.jar)");
    }
  }

  @Test
  void theJarCarriesTheNativesOfOnePlatformAndNoPython() throws IOException {
    List<String> names = entries();
    List<String> natives = names.stream().filter(CliJarCheck::isNative).toList();
    assertTrue(natives.stream().anyMatch(n -> n.contains("libnd4jcpu")), "ND4J's CPU backend is in the jar");
    assertTrue(natives.stream().anyMatch(n -> n.contains("opencv_imgcodecs")), "OpenCV's codecs are in the jar");
    List<String> foreign = natives.stream().filter(n -> platformFolders().stream().noneMatch(n::contains)).toList();
    assertEquals(List.of(), foreign, "natives outside " + platformFolders());
    List<String> python = names.stream().filter(n -> n.toLowerCase(Locale.ROOT).contains("python") || n.contains("cv2")
        || n.matches(".*\\.py[cdo]?$")).toList();
    assertEquals(List.of(), python, "Python files in the jar");
  }

  @Test
  void theJarCarriesTheTwoVocabulariesThatTokenizeOffers() throws IOException {
    List<String> vocabularies = entries().stream().filter(n -> n.endsWith(".tiktoken")).sorted().toList();
    assertEquals(List.of("com/knuddels/jtokkit/cl100k_base.tiktoken", "com/knuddels/jtokkit/o200k_base.tiktoken"),
        vocabularies);
  }

  @Test
  void tokenizeRunsFromTheJar() throws IOException, InterruptedException {
    Path text = Files.writeString(dir.resolve("hello.txt"), "hello world");
    CliTest.Run r = launch("tokenize", "--tokenizer", "o200k_base", dir.resolve("set").toString(), text.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("tokenized 1 document into 2 tokens (o200k_base, 2.0 a document)"), r.out());
  }

  @Test
  void theDocsGiveTheJarsSize() throws IOException {
    // docs/cli.md: "cli/target/minibatch.jar is one executable jar (NNN MB ...", measured on linux-x86_64.
    Matcher m = Pattern.compile("`cli/target/minibatch\\.jar` is one executable jar \\((\\d+) MB").matcher(
        Files.readString(DOCS));
    assertTrue(m.find(), "docs/cli.md states the jar's size");
    if (System.getProperty("cli.platform", "linux-x86_64").equals("linux-x86_64")) {
      double mb = Files.size(JAR) / 1e6;
      assertEquals(Double.parseDouble(m.group(1)), mb, 3, "the jar is " + mb + " MB; update docs/cli.md");
    }
  }

  /** Runs bin/minibatch with stdout and stderr in pipes. */
  static CliTest.Run launch(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("MINIBATCH_JAR", JAR.toString());
    pb.environment().put("OMP_NUM_THREADS", "1");
    Path out = Files.createTempFile("minibatch", ".out");
    Path err = Files.createTempFile("minibatch", ".err");
    try {
      Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "bin/minibatch " + args[0] + " finished");
      return new CliTest.Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Test
  void theLauncherRunsTheJarAndAPipeGetsNoTerminalControls() throws IOException, InterruptedException {
    CliTest.Run version = launch("--version");
    assertEquals(0, version.code(), version.err());
    assertTrue(version.out().startsWith("minibatch "), version.out());
    assertTrue(!version.out().contains("development build"), "the jar's manifest gives the version: " + version.out());

    Path csv = Files.writeString(dir.resolve("small.csv"), "1,2,0\n3,4,1\n5,6,0\n7,8,1\n");
    CliTest.Run bench = launch("bench", "--batch", "2", "--epochs", "1", csv.toString());
    assertEquals(0, bench.code(), bench.err());
    assertTrue(bench.out().contains("epoch 1:  4 samples in 2 batches"), bench.out());
    assertTrue(!CliTest.hasTerminalControls(bench.out()) && !CliTest.hasTerminalControls(bench.err()),
        "no ESC or CR in a pipe: " + bench.err());
  }
}
