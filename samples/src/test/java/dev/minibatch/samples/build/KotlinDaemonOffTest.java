package dev.minibatch.samples.build;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * No build of this repository leaves a Kotlin compile daemon behind: kotlin-maven-plugin starts one
 * by default (up to 6 GB of heap, resident for two idle hours after the build). Every module whose
 * build runs the plugin must turn it off, with the property {@code kotlin.compiler.daemon} (in its
 * pom or the parent's) or the plugin's {@code useDaemon}.
 */
class KotlinDaemonOffTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private static Document read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  private static String text(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? "" : found.get(0).getTextContent().trim();
  }

  /** The value of property {@code name} in {@code pom}'s top-level properties, or "". */
  private static String property(Document pom, String name) {
    for (Element props : children(pom.getDocumentElement(), "properties")) {
      return text(props, name);
    }
    return "";
  }

  /** kotlin-maven-plugin declarations that run (under build/plugins, also in profiles), not pluginManagement. */
  private static List<Element> kotlinPlugins(Document pom) {
    List<Element> out = new ArrayList<>();
    NodeList plugins = pom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      Element list = (Element) plugin.getParentNode();
      if (text(plugin, "artifactId").equals("kotlin-maven-plugin")
          && !((Element) list.getParentNode()).getTagName().equals("pluginManagement")) {
        out.add(plugin);
      }
    }
    return out;
  }

  private static boolean useDaemonOff(Element plugin) {
    for (Element config : children(plugin, "configuration")) {
      if (text(config, "useDaemon").equals("false")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void everyModuleThatCompilesKotlinCompilesItWithoutADaemon() throws Exception {
    Document parent = read(ROOT.resolve("pom.xml"));
    boolean parentOff = property(parent, "kotlin.compiler.daemon").equals("false");
    List<String> compilingKotlin = new ArrayList<>();
    NodeList modules = parent.getElementsByTagName("module");
    for (int i = 0; i < modules.getLength(); i++) {
      String module = modules.item(i).getTextContent().trim();
      Path pomFile = ROOT.resolve(module).resolve("pom.xml");
      assertTrue(Files.isRegularFile(pomFile), pomFile + " (module " + module + ")");
      Document pom = read(pomFile);
      String own = property(pom, "kotlin.compiler.daemon");
      for (Element plugin : kotlinPlugins(pom)) {
        compilingKotlin.add(module);
        boolean off = own.equals("false") || (own.isEmpty() && parentOff) || useDaemonOff(plugin);
        assertTrue(off, module + "/pom.xml runs kotlin-maven-plugin with its compile daemon: set the property "
            + "<kotlin.compiler.daemon>false</kotlin.compiler.daemon>, or <useDaemon>false</useDaemon>");
      }
    }
    // The samples compile Kotlin (kapt and kotlinc): if none did, this test would check nothing.
    assertFalse(compilingKotlin.isEmpty(), "no module of " + ROOT + " runs kotlin-maven-plugin");
  }

  /**
   * docs/kotlin.md's pom, which users copy for a Kotlin-only app, also runs kotlinc without a
   * daemon, takes its sources from src/main/kotlin (a missing src/main/java was warned about once
   * per execution) and maps kapt's errors to the .kt lines. Built for real in issue 41; this keeps
   * the page from drifting back.
   */
  @Test
  void theKotlinPagesPomCompilesWithoutADaemonFromKotlinSourcesOnly() throws Exception {
    String page = Files.readString(ROOT.resolve("docs/kotlin.md"));
    int at = page.indexOf("<artifactId>kt-demo</artifactId>");
    assertTrue(at > 0, "docs/kotlin.md has no kt-demo pom");
    int start = page.lastIndexOf("```xml\n", at) + "```xml\n".length();
    String xml = page.substring(start, page.indexOf("```", at));
    Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new org.xml.sax.InputSource(new java.io.StringReader(xml)));
    assertTrue(property(pom, "kotlin.compiler.daemon").equals("false"), "kotlin.md's pom: kotlin.compiler.daemon");
    Element build = children(pom.getDocumentElement(), "build").get(0);
    assertTrue(text(build, "sourceDirectory").equals("src/main/kotlin"), "kotlin.md's pom: sourceDirectory");
    assertFalse(xml.contains("src/main/java</sourceDir>"), "kotlin.md's pom lists src/main/java, which a Kotlin-only app lacks");
    List<Element> plugins = kotlinPlugins(pom);
    assertTrue(plugins.size() == 1, "one kotlin-maven-plugin in kotlin.md's pom");
    boolean mapped = false;
    NodeList executions = plugins.get(0).getElementsByTagName("execution");
    for (int i = 0; i < executions.getLength(); i++) {
      Element e = (Element) executions.item(i);
      if (text(e, "id").equals("kapt")) {
        mapped = text(children(e, "configuration").get(0), "mapDiagnosticLocations").equals("true");
      }
    }
    assertTrue(mapped, "kotlin.md's pom: the kapt execution sets mapDiagnosticLocations");
  }
}
