package dev.minibatch.apicheck;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;

/**
 * Which package of a module uses which, as the JDK's {@code jdeps} reads the compiled classes, and
 * the cycles among them: the build's check that a module's packages form layers.
 */
public final class PackageGraph {
  private final Map<String, Set<String>> uses;

  private PackageGraph(Map<String, Set<String>> uses) {
    this.uses = uses;
  }

  /**
   * The graph of the packages under {@code prefix} in {@code classes} (a module's {@code
   * target/classes}), by {@code jdeps -verbose:package}.
   *
   * @throws IllegalStateException if the JDK has no jdeps or it fails
   */
  public static PackageGraph of(Path classes, String prefix) {
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException("this JDK has no jdeps"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package", "-filter:none",
        "-e", java.util.regex.Pattern.quote(prefix) + ".*", classes.toString());
    if (code != 0) {
      throw new IllegalStateException("jdeps failed (" + code + "): " + err);
    }
    Map<String, Set<String>> uses = new TreeMap<>();
    for (String line : out.toString().split("\n")) {
      String[] t = line.trim().split("\\s+");
      // "   a.b   -> c.d   classes"
      if (t.length >= 3 && t[1].equals("->") && t[0].startsWith(prefix) && t[2].startsWith(prefix)) {
        uses.computeIfAbsent(t[0], k -> new TreeSet<>());
        if (!t[0].equals(t[2])) {
          uses.get(t[0]).add(t[2]);
        }
      }
    }
    return new PackageGraph(uses);
  }

  /** The packages {@code pkg} uses (not itself). */
  public Set<String> uses(String pkg) {
    return uses.getOrDefault(pkg, Set.of());
  }

  /** The packages seen. */
  public Set<String> packages() {
    return uses.keySet();
  }

  /** Every cycle's packages (strongly connected components of more than one package), sorted. */
  public List<Set<String>> cycles() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new java.util.HashSet<>();
    List<Set<String>> out = new ArrayList<>();
    for (String v : uses.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, index, low, stack, onStack, out);
      }
    }
    return out;
  }

  private void connect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
      Set<String> onStack, List<Set<String>> out) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : uses(v)) {
      if (!index.containsKey(w)) {
        connect(w, index, low, stack, onStack, out);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        out.add(component);
      }
    }
  }
}
