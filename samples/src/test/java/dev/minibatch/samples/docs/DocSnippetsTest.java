package dev.minibatch.samples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Every Java, Kotlin and XML block of README.md and docs/ is checked here, so a snippet that drifts
 * from the API fails the build. The rules (and the {@code <!-- snippet: ... -->} directives that
 * adjust them) are described in docs/index.md, "Code in these pages".
 *
 * <ul>
 *   <li>Java: compiled with javac and the minibatch processor against this module's test classpath
 *       (runtime, ND4J). A block that starts like a compilation unit is compiled as one; any other
 *       block is a list of statements, compiled as a method body whose parameters are the
 *       {@code given} directive's. Blocks without imports get {@link #IMPORTS}. All blocks of a page
 *       compile together, so later blocks can use the types of earlier ones. {@code error ID}: the
 *       block must fail with {@code [minibatch/ID]}. {@code run CLASS}: its {@code main} is run.
 *       {@code source PATH}: the block must appear verbatim in that compiled file. {@code fragment
 *       REASON}: not compiled, for deliberately partial text. Source comparisons ignore indentation
 *       and {@code package} lines.
 *   <li>Kotlin: {@code source PATH} (a Kotlin file compiled by this module with kapt) or {@code
 *       fragment}.
 *   <li>XML: well-formed; minibatch artifacts and versions, and those of ND4J, JavaCPP's presets,
 *       Kotlin and Dagger, match this build's; a whole {@code <project>} gives every plugin a version.
 * </ul>
 */
class DocSnippetsTest {
  /** Imports added to Java blocks that have none. */
  static final List<String> IMPORTS = List.of(
      "dev.minibatch.*", "dev.minibatch.shape.*", "dev.minibatch.runtime.*", "dev.minibatch.runtime.array.*",
      "dev.minibatch.runtime.engine.*", "dev.minibatch.runtime.pipeline.*", "dev.minibatch.runtime.reader.*",
      "dev.minibatch.runtime.io.*", "dev.minibatch.runtime.io.csv.*", "dev.minibatch.runtime.io.image.*",
      "dev.minibatch.runtime.io.recordio.*", "dev.minibatch.runtime.io.mnist.*", "dev.minibatch.shards.*", "dev.minibatch.text.*", "dev.minibatch.runtime.io.hdf5.*",
      "dev.minibatch.runtime.interop.*", "dev.minibatch.runtime.trace.*", "dev.minibatch.runtime.report.*", "dev.minibatch.runtime.reader.Readers.Tuple",
      "dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter", "dev.minibatch.runtime.io.idx.*", "java.nio.*", "java.nio.file.*", "java.util.*", "java.util.function.*",
      "org.nd4j.linalg.api.ndarray.INDArray", "org.nd4j.linalg.factory.Nd4j",
      "org.nd4j.autodiff.samediff.SameDiff", "org.nd4j.autodiff.samediff.TrainingConfig",
      "org.nd4j.linalg.learning.config.Adam");

  private static final Pattern UNIT_START = Pattern.compile(
      "^(package |import |@|((public|final|abstract|sealed|static) )*(class|record|interface|enum) ).*");
  private static final Pattern PUBLIC_TYPE = Pattern.compile(
      "(?m)^public\\s+(?:(?:final|abstract|sealed)\\s+)*(?:class|record|interface|enum)\\s+(\\w+)");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

  static final Path ROOT = findRoot();

  private static Path findRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !(Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs")))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  static List<Snippet> allSnippets() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<Snippet> out = new ArrayList<>();
    for (Path page : pages) {
      out.addAll(Snippet.parse(ROOT, page));
    }
    return out;
  }

  @TestFactory
  List<DynamicTest> everySnippet() throws IOException {
    List<Snippet> snippets = allSnippets();
    Map<String, PageCompilation> compiled = new HashMap<>();
    List<DynamicTest> tests = new ArrayList<>();
    for (Snippet s : snippets) {
      String name = s.where() + " " + s.language() + (s.directives().isEmpty() ? "" : " " + s.directives().keySet());
      switch (s.language()) {
        case "java" -> tests.add(DynamicTest.dynamicTest(name, () -> checkJava(s, snippets, compiled)));
        case "kotlin" -> tests.add(DynamicTest.dynamicTest(name, () -> checkSourceOrFragment(s)));
        case "xml" -> tests.add(DynamicTest.dynamicTest(name, () -> checkXml(s)));
        default -> { }
      }
    }
    return tests;
  }

  /** Guards the checker itself: the pages do have blocks of every kind it claims to check. */
  @Test
  void theCheckerSeesEveryKindOfBlock() throws IOException {
    List<Snippet> snippets = allSnippets();
    Set<String> kinds = new TreeSet<>();
    for (Snippet s : snippets) {
      if (s.language().equals("java")) {
        kinds.add(s.has("error") ? "java error" : s.has("fragment") ? "java fragment" : s.has("source") ? "java source"
            : "java compiled");
      } else {
        kinds.add(s.language());
      }
    }
    assertTrue(kinds.containsAll(List.of("java compiled", "java error", "java source", "kotlin", "xml")), kinds.toString());
    assertTrue(snippets.stream().anyMatch(s -> s.has("run")), "no README snippet is run");
  }

  /** The checks fail on drifted blocks: a renamed builder method, a wrong error ID, a stale version. */
  @Test
  void driftIsCaught() throws Exception {
    Snippet digit = new Snippet("test.md", 1, "java",
        "@DataProvider record Pt(@Provides(shape = {2}) float[] xy) {}\n", Map.of());
    Snippet renamed = new Snippet("test.md", 5, "java",
        "try (PtProvider p = PtProvider.builder().sample(List.of()).batchSize(2).build()) { }\n", Map.of());
    PageCompilation page = PageCompilation.compile(List.of(digit, renamed));
    assertTrue(page.errorsOf(digit).isEmpty(), page.allErrors().toString());
    assertTrue(page.errorsOf(renamed).stream().anyMatch(e -> e.contains("cannot find symbol")), page.allErrors().toString());
    Snippet fixed = new Snippet("test.md", 5, "java",
        "try (PtProvider p = PtProvider.builder().samples(List.of()).batchSize(2).build()) { }\n", Map.of());
    assertEquals(List.of(), PageCompilation.compile(List.of(digit, fixed)).allErrors());

    Snippet wrongId = new Snippet("test.md", 9, "java",
        "@DataProvider record S(@Provides(shape = {3}) float x) {}\n", Map.of("error", "ShapeRank"));
    assertThrows(AssertionError.class, () -> checkError(wrongId));
    checkError(new Snippet("test.md", 9, "java", wrongId.code(), Map.of("error", "ScalarShape")));

    String dependency = "<dependency><groupId>dev.minibatch</groupId><artifactId>minibatch-runtime</artifactId>"
        + "<version>%s</version></dependency>\n";
    checkXml(new Snippet("test.md", 12, "xml", String.format(dependency, new Build().version), Map.of()));
    assertThrows(AssertionError.class, () -> checkXml(new Snippet("test.md", 12, "xml", String.format(dependency, "0.0.1"), Map.of())));
    assertThrows(AssertionError.class, () -> checkXml(new Snippet("test.md", 12, "xml", "<dependency><groupId>", Map.of())));
  }

  // ---------------------------------------------------------------- Java

  private static void checkJava(Snippet s, List<Snippet> all, Map<String, PageCompilation> compiled) throws Exception {
    if (s.has("fragment")) {
      assertFalse(s.arg("fragment").isEmpty(), s.where() + ": say why the block is a fragment: <!-- snippet: fragment REASON -->");
      return;
    }
    if (s.has("source")) {
      checkSource(s);
      return;
    }
    if (s.has("error")) {
      checkError(s);
      return;
    }
    PageCompilation page = compiled.computeIfAbsent(s.page(), p -> PageCompilation.compile(
        all.stream().filter(x -> x.page().equals(p) && x.language().equals("java")
            && !x.has("fragment") && !x.has("source") && !x.has("error")).toList()));
    List<String> errors = page.errorsOf(s);
    if (!errors.isEmpty()) {
      fail(s.where() + " does not compile:\n" + String.join("\n", errors));
    }
    if (s.has("run")) {
      String output = page.run(s.arg("run"));
      if (s.has("expect")) {
        assertTrue(output.contains(s.arg("expect")), s.where() + ": expected the output to contain '" + s.arg("expect")
            + "', got:\n" + output);
      }
    }
  }

  private static void checkError(Snippet s) throws IOException {
    String id = "[minibatch/" + s.arg("error") + "]";
    PageCompilation c = PageCompilation.compile(List.of(s));
    List<String> errors = c.allErrors();
    assertTrue(errors.stream().anyMatch(e -> e.contains(id)),
        s.where() + " should fail with " + id + "; errors:\n" + String.join("\n", errors));
    for (String e : errors) {
      Matcher m = Pattern.compile("\\[minibatch/\\w+\\]").matcher(e);
      while (m.find()) {
        assertEquals(id, m.group(), s.where() + " shows another minibatch error than " + id + ":\n" + e);
      }
    }
  }

  /** The sources of one page's compiled blocks, compiled together with the processor. */
  static final class PageCompilation {
    final Map<JavaFileObject, Snippet> bySource = new IdentityHashMap<>();
    final Map<Snippet, Integer> offsets = new IdentityHashMap<>();
    final List<Diagnostic<? extends JavaFileObject>> errors = new ArrayList<>();
    Path classes;

    static PageCompilation compile(List<Snippet> snippets) {
      PageCompilation c = new PageCompilation();
      try {
        // Under target/ (the module's build directory when run by Maven), so mvn clean removes them.
        Path target = Files.isDirectory(Path.of("target")) ? Path.of("target") : Path.of(System.getProperty("java.io.tmpdir"));
        c.classes = Files.createTempDirectory(target, "snippets-classes");
        Path generated = Files.createTempDirectory(target, "snippets-generated");
        List<JavaFileObject> files = new ArrayList<>();
        for (Snippet s : snippets) {
          JavaFileObject f = c.source(s);
          files.add(f);
          c.bySource.put(f, s);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        String cp = testClassPath();
        List<String> options = List.of("-classpath", cp, "-processorpath", cp,
            "-processor", "dev.minibatch.processor.MinibatchProcessor", "-d", c.classes.toString(),
            "-s", generated.toString(), "-encoding", "UTF-8", "--release", "17", "-implicit:class");
        javac.getTask(null, null, diagnostics, options, null, files).call();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
          if (d.getKind() == Diagnostic.Kind.ERROR) {
            c.errors.add(d);
          }
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return c;
    }

    /** The errors located in {@code s}, and those located nowhere or in generated code. */
    List<String> errorsOf(Snippet s) {
      List<String> out = new ArrayList<>();
      for (Diagnostic<? extends JavaFileObject> d : errors) {
        Snippet at = d.getSource() == null ? null : bySource.get(d.getSource());
        if (at == s || at == null) {
          out.add(describe(d));
        }
      }
      return out;
    }

    List<String> allErrors() {
      return errors.stream().map(this::describe).toList();
    }

    private String describe(Diagnostic<? extends JavaFileObject> d) {
      Snippet at = d.getSource() == null ? null : bySource.get(d.getSource());
      String where = at == null ? String.valueOf(d.getSource() == null ? "?" : d.getSource().getName())
          : at.page() + " block at line " + at.line() + ", its line " + (d.getLineNumber() - offsets.get(at));
      return "  " + where + ": " + d.getMessage(Locale.ROOT);
    }

    private JavaFileObject source(Snippet s) {
      String code = s.code();
      boolean unit = code.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("//"))
          .findFirst().map(l -> UNIT_START.matcher(l).matches()).orElse(false);
      if (unit && s.has("given")) {
        throw new IllegalStateException(s.where() + ": 'given' applies to statements, not to a compilation unit");
      }
      boolean hasImports = code.lines().anyMatch(l -> l.startsWith("import "));
      StringBuilder imports = new StringBuilder();
      if (!hasImports) {
        IMPORTS.forEach(i -> imports.append("import ").append(i).append(";\n"));
      }
      String text;
      int offset;
      String name;
      String pkg = "";
      if (unit) {
        Matcher p = PACKAGE.matcher(code);
        Matcher t = PUBLIC_TYPE.matcher(code);
        name = t.find() ? t.group(1) : "Snippet_L" + s.line();
        if (p.find()) {
          pkg = p.group(1);
          String head = code.substring(0, p.end()) + "\n";
          text = head + imports + code.substring(p.end());
          offset = (int) imports.chars().filter(ch -> ch == '\n').count() + 1;
        } else {
          text = imports + code;
          offset = (int) imports.chars().filter(ch -> ch == '\n').count();
        }
      } else {
        name = "Snippet_L" + s.line();
        String head = imports + "class " + name + " {\n  void snippet(" + s.arg("given") + ") throws Exception {\n";
        text = head + code + "  }\n}\n";
        offset = (int) head.chars().filter(ch -> ch == '\n').count();
      }
      offsets.put(s, offset);
      String path = (pkg.isEmpty() ? "" : pkg.replace('.', '/') + "/") + name + ".java";
      String source = text;
      return new SimpleJavaFileObject(URI.create("string:///" + path), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return source;
        }

        @Override
        public String getName() {
          return s.where() + " (" + path + ")";
        }
      };
    }

    /** Runs {@code mainClass}'s main from the compiled blocks; returns what it printed. */
    String run(String mainClass) throws Exception {
      assertTrue(errors.isEmpty(), "not run: the page has compile errors");
      PrintStream out = System.out;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, DocSnippetsTest.class.getClassLoader())) {
        Method main = loader.loadClass(mainClass).getMethod("main", String[].class);
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        main.invoke(null, (Object) new String[0]);
      } finally {
        System.setOut(out);
      }
      return captured.toString(StandardCharsets.UTF_8);
    }
  }

  /**
   * The test classpath. Surefire starts tests from a manifest-only jar, whose Class-Path lists the
   * real entries; {@code surefire.test.class.path} names them directly where it is set.
   */
  static String testClassPath() throws IOException {
    String cp = System.getProperty("surefire.test.class.path");
    if (cp != null && !cp.isBlank()) {
      return cp;
    }
    cp = System.getProperty("java.class.path");
    String[] entries = cp.split(java.io.File.pathSeparator);
    if (entries.length == 1 && entries[0].endsWith(".jar")) {
      try (JarFile jar = new JarFile(entries[0])) {
        Manifest m = jar.getManifest();
        String classPath = m == null ? null : m.getMainAttributes().getValue("Class-Path");
        if (classPath != null) {
          List<String> out = new ArrayList<>();
          for (String u : classPath.trim().split("\\s+")) {
            out.add(Path.of(URI.create(u.startsWith("file:") ? u : "file:" + u)).toString());
          }
          return String.join(java.io.File.pathSeparator, out);
        }
      }
    }
    return cp;
  }

  // ---------------------------------------------------------------- source, Kotlin

  private static void checkSourceOrFragment(Snippet s) throws IOException {
    if (s.has("fragment")) {
      assertFalse(s.arg("fragment").isEmpty(), s.where() + ": say why the block is a fragment");
      return;
    }
    assertTrue(s.has("source"), s.where() + ": a " + s.language() + " block needs <!-- snippet: source PATH --> naming the "
        + "compiled file it is copied from (or <!-- snippet: fragment REASON -->)");
    checkSource(s);
  }

  /** The block appears, line for line, in a source file the build compiles. */
  private static void checkSource(Snippet s) throws IOException {
    Path file = ROOT.resolve(s.arg("source"));
    assertTrue(Files.isRegularFile(file), s.where() + ": source " + s.arg("source") + " does not exist");
    assertTrue(s.arg("source").contains("/src/main/") || s.arg("source").contains("/src/test/"),
        s.where() + ": source " + s.arg("source") + " is not under a module's src/main or src/test");
    String text = normalize(Files.readString(file));
    assertTrue(("\n" + text).contains("\n" + normalize(s.code().stripTrailing())), s.where() + ": the block is not a part of "
        + s.arg("source") + " (compared line by line, ignoring indentation and package lines); copy it from there again");
  }

  /** Lines without their indentation, without {@code package} lines (a page may show its own). */
  static String normalize(String text) {
    StringBuilder out = new StringBuilder();
    for (String line : text.replace("\r\n", "\n").split("\n", -1)) {
      String l = line.strip();
      if (!l.startsWith("package ")) {
        out.append(l).append('\n');
      }
    }
    return out.toString();
  }

  // ---------------------------------------------------------------- XML

  /** What this build says each checked artifact's version is. */
  static final class Build {
    final String version;
    final Map<String, String> properties = new LinkedHashMap<>();
    final Set<String> minibatchArtifacts = new TreeSet<>();

    Build() throws Exception {
      Document pom = parse(Files.readString(ROOT.resolve("pom.xml")));
      Element project = pom.getDocumentElement();
      version = child(project, "version");
      for (Element p : children(first(project, "properties"))) {
        properties.put(p.getTagName(), p.getTextContent().trim());
      }
      for (Element m : children(first(project, "modules"))) {
        Document module = parse(Files.readString(ROOT.resolve(m.getTextContent().trim()).resolve("pom.xml")));
        minibatchArtifacts.add(child(module.getDocumentElement(), "artifactId"));
      }
    }

    /** The version an artifact must have, or null when it is not checked. */
    String expected(String groupId, String artifactId) {
      return switch (groupId) {
        case "dev.minibatch" -> version;
        case "org.nd4j", "org.deeplearning4j" -> properties.get("nd4j.version");   // DL4J ships at ND4J's version
        case "org.jetbrains.kotlin" -> properties.get("kotlin.version");
        case "com.google.dagger" -> properties.get("dagger.version");
        case "org.bytedeco" -> properties.get(artifactId + ".version");   // javacpp, openblas, opencv
        default -> null;
      };
    }
  }

  private static void checkXml(Snippet s) throws Exception {
    if (s.has("fragment")) {
      assertFalse(s.arg("fragment").isEmpty(), s.where() + ": say why the block is a fragment");
      return;
    }
    String code = s.code().strip();
    boolean wholeProject = code.startsWith("<?xml") || code.startsWith("<project");
    if (code.startsWith("<?xml")) {
      code = code.substring(code.indexOf("?>") + 2);
    }
    Document doc;
    try {
      doc = parse("<snippet>" + code + "</snippet>");
    } catch (Exception e) {
      throw new AssertionError(s.where() + ": not well-formed XML: " + e.getMessage(), e);
    }
    Build build = new Build();
    Map<String, String> snippetProperties = new HashMap<>();
    NodeList props = doc.getElementsByTagName("properties");
    for (int i = 0; i < props.getLength(); i++) {
      for (Element p : children((Element) props.item(i))) {
        snippetProperties.put(p.getTagName(), p.getTextContent().trim());
      }
    }
    List<String> problems = new ArrayList<>();
    for (String tag : List.of("dependency", "path", "annotationProcessorPath", "plugin", "parent")) {
      NodeList nodes = doc.getElementsByTagName(tag);
      for (int i = 0; i < nodes.getLength(); i++) {
        Element e = (Element) nodes.item(i);
        String group = child(e, "groupId");
        String artifact = child(e, "artifactId");
        String version = child(e, "version");
        if (version != null && version.startsWith("${") && version.endsWith("}")) {
          version = snippetProperties.get(version.substring(2, version.length() - 1));
        }
        if (group == null && tag.equals("plugin")) {
          group = "org.apache.maven.plugins";
        }
        if (group == null || artifact == null) {
          problems.add("<" + tag + "> without groupId or artifactId");
          continue;
        }
        if (group.equals("dev.minibatch") && !build.minibatchArtifacts.contains(artifact)) {
          problems.add(group + ":" + artifact + " is not a module of this build " + build.minibatchArtifacts);
        }
        String expected = build.expected(group, artifact);
        if (expected != null && version != null && !version.equals(expected)) {
          problems.add(group + ":" + artifact + " has version " + version + "; this build has " + expected);
        }
        if (wholeProject && tag.equals("plugin") && child(e, "version") == null) {
          problems.add("plugin " + group + ":" + artifact + " has no version (Maven 3.8 would pick an old default)");
        }
      }
    }
    if (!problems.isEmpty()) {
      fail(s.where() + ":\n  " + String.join("\n  ", problems));
    }
  }

  private static Document parse(String xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    DocumentBuilder b = f.newDocumentBuilder();
    b.setErrorHandler(null);
    return b.parse(new InputSource(new StringReader(xml)));
  }

  private static Element first(Element parent, String tag) {
    for (Element e : children(parent)) {
      if (e.getTagName().equals(tag)) {
        return e;
      }
    }
    throw new IllegalStateException("no <" + tag + "> in <" + parent.getTagName() + ">");
  }

  private static String child(Element parent, String tag) {
    for (Element e : children(parent)) {
      if (e.getTagName().equals(tag)) {
        return e.getTextContent().trim();
      }
    }
    return null;
  }

  private static List<Element> children(Element parent) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e) {
        out.add(e);
      }
    }
    return out;
  }
}
