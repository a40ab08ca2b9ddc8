package dev.minibatch.samples.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One fenced code block of a Markdown page, with the directives of the {@code <!-- snippet: ... -->}
 * comment on the line just above its fence (the convention is described in docs/index.md).
 *
 * @param page the Markdown file, relative to the repository root ({@code docs/kotlin.md})
 * @param line the 1-based line of the opening fence
 * @param language the fence's info string ({@code java}, {@code kotlin}, {@code xml}, ...)
 * @param code the block's text, ending with a newline
 * @param directives directive name to its argument text ("" when it has none), in order
 */
record Snippet(String page, int line, String language, String code, Map<String, String> directives) {
  private static final Pattern DIRECTIVE = Pattern.compile("^<!--\\s*snippet:(.*?)-->\\s*$");

  /** The directive names the checker understands. */
  static final List<String> KNOWN = List.of("fragment", "given", "error", "source", "run", "expect");

  /** Where the block is, for messages: {@code docs/kotlin.md:53}. */
  String where() {
    return page + ":" + line;
  }

  boolean has(String directive) {
    return directives.containsKey(directive);
  }

  String arg(String directive) {
    return directives.getOrDefault(directive, "");
  }

  /**
   * The fenced blocks of {@code file}. Directives are {@code ;}-separated, each a name and an
   * optional argument: {@code <!-- snippet: given Path dir; run demo.Train -->}.
   */
  static List<Snippet> parse(Path root, Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    String page = root.relativize(file).toString().replace('\\', '/');
    List<Snippet> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String fence = lines.get(i);
      if (!fence.startsWith("```") || fence.length() == 3) {
        continue;
      }
      String language = fence.substring(3).trim();
      StringBuilder code = new StringBuilder();
      int j = i + 1;
      while (j < lines.size() && !lines.get(j).startsWith("```")) {
        code.append(lines.get(j)).append('\n');
        j++;
      }
      if (j == lines.size()) {
        throw new IllegalStateException(page + ":" + (i + 1) + ": the code block is never closed");
      }
      Map<String, String> directives = new LinkedHashMap<>();
      if (i > 0) {
        Matcher m = DIRECTIVE.matcher(lines.get(i - 1).trim());
        if (m.matches()) {
          for (String part : m.group(1).split(";")) {
            String p = part.trim();
            if (p.isEmpty()) {
              continue;
            }
            int space = p.indexOf(' ');
            String name = space < 0 ? p : p.substring(0, space);
            if (!KNOWN.contains(name)) {
              throw new IllegalStateException(page + ":" + i + ": unknown snippet directive '" + name + "'; known: " + KNOWN);
            }
            directives.put(name, space < 0 ? "" : p.substring(space + 1).trim());
          }
        }
      }
      out.add(new Snippet(page, i + 1, language, code.toString(), Map.copyOf(directives)));
      i = j;
    }
    return out;
  }
}
