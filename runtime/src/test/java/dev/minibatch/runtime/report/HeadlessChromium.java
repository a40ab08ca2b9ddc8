package dev.minibatch.runtime.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A page opened in a real browser: Debian's {@code chromium} (installed by {@code .ci/run}), headless,
 * which prints the document after its scripts ran ({@code --dump-dom}). Missing, it fails the test
 * with the command that installs it: the report's page is only tested where a browser draws it.
 */
final class HeadlessChromium {
  private static final List<String> NAMES = List.of("chromium", "chromium-browser", "google-chrome");
  private static final Pattern FIGURE = Pattern.compile(
      "data-figure=\"([^\"]*)\" data-epoch=\"([^\"]*)\"(?: data-stage=\"([^\"]*)\")? data-value=\"([^\"]*)\"");

  private HeadlessChromium() {}

  /** The browser's executable on the PATH. */
  static Path binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      for (String name : NAMES) {
        Path p = Path.of(dir, name);
        if (!dir.isEmpty() && Files.isExecutable(p)) {
          return p;
        }
      }
    }
    return fail("this test opens the HTML report in headless Chromium, and none of " + NAMES + " is on the PATH: "
        + "install it with `apt-get install -y --no-install-recommends chromium` (Debian; .ci/run does this before "
        + "mvn -B -ntp verify)");
  }

  /** The document of {@code page} after its scripts ran, as the browser serialises it. */
  static String dumpDom(Path page, Path profile) throws IOException, InterruptedException {
    Path out = Files.createTempFile(profile.getParent(), "dom", ".html");
    Path err = Files.createTempFile(profile.getParent(), "chromium", ".log");
    Process p = new ProcessBuilder(binary().toString(), "--headless", "--disable-gpu", "--no-sandbox",
        "--no-first-run", "--user-data-dir=" + profile, "--dump-dom", page.toUri().toString())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      fail("headless Chromium did not finish within 90 s on " + page + "; its log: " + Files.readString(err));
    }
    String dom = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), "chromium's exit code; its log: " + Files.readString(err));
    assertTrue(dom.contains("</html>"), "chromium printed no document; its log: " + Files.readString(err));
    return dom;
  }

  /** Fails unless the page's script ran to its end without an error (the page's own markers). */
  static void assertRendered(String dom) {
    Matcher error = Pattern.compile("data-error=\"([^\"]*)\"").matcher(dom);
    if (error.find()) {
      fail("the page's script failed: " + error.group(1));
    }
    assertTrue(dom.contains("<body data-rendered=\"ok\">"), "the page's script did not reach its end: " + dom);
  }

  /** The figures the script drew, by {@code kind|epoch|stage} ({@code kind|epoch} without a stage): their values. */
  static Map<String, String> figures(String dom) {
    Map<String, String> figures = new HashMap<>();
    Matcher m = FIGURE.matcher(dom);
    while (m.find()) {
      String key = m.group(1) + "|" + m.group(2) + (m.group(3) == null ? "" : "|" + m.group(3));
      figures.put(key, m.group(4).replace("&amp;", "&").replace("&quot;", "\"").replace("&lt;", "<")
          .replace("&gt;", ">"));
    }
    return figures;
  }
}
