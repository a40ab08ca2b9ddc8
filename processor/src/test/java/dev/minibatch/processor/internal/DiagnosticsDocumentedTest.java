package dev.minibatch.processor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every diagnostic has its stable ID documented in docs/diagnostics.md: a row of the page's table of
 * IDs and a section of its own, the table in the sections' order; and the page documents no ID the
 * processor does not have ({@link Message} is the list).
 */
class DiagnosticsDocumentedTest {
  private static final Pattern ROW = Pattern.compile("(?m)^\\| \\[(\\w+)\\]\\(#(\\w+)\\) \\|");
  private static final Pattern SECTION = Pattern.compile("(?m)^## (\\w+)$");

  @Test
  void everyIdHasARowAndASection() throws IOException {
    String page = Files.readString(Path.of("..", "docs", "diagnostics.md"), StandardCharsets.UTF_8);
    List<String> ids = new ArrayList<>();
    for (Message m : Message.values()) {
      ids.add(m.id());
    }
    List<String> rows = new ArrayList<>();
    Matcher r = ROW.matcher(page);
    while (r.find()) {
      assertEquals(r.group(1).toLowerCase(java.util.Locale.ROOT), r.group(2), "the row's link: " + r.group());
      rows.add(r.group(1));
    }
    List<String> sections = new ArrayList<>();
    Matcher s = SECTION.matcher(page);
    while (s.find()) {
      sections.add(s.group(1));
    }
    assertEquals(rows, sections, "the table of IDs, in the sections' order");
    ids.sort(null);
    sections.sort(null);
    assertEquals(ids, sections, "the documented IDs");
  }
}
