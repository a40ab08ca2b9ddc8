package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.apicheck.PackageGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The runtime's packages form the layers docs/engine.md lists under "Packages": each uses only the
 * ones listed above it, so there is no cycle (checked on the compiled classes with jdeps).
 */
class PackageLayersTest {
  private static final PackageGraph GRAPH = PackageGraph.of(Path.of("target", "classes"), "dev.minibatch.runtime");

  /** The packages of engine.md's listing, top first; {@code io[.*]} stands for io and its sub-packages. */
  private static List<String> documentedLayers() throws IOException {
    String page = Files.readString(Path.of("..", "docs", "engine.md"));
    int at = page.indexOf("## Packages");
    String block = page.substring(page.indexOf("```\n", at) + 4, page.indexOf("\n```", page.indexOf("```\n", at) + 4));
    List<String> layers = new ArrayList<>();
    for (String line : block.split("\n")) {
      if (line.startsWith("dev.minibatch.runtime")) {
        layers.add(line.split("\\s+")[0]);
      }
    }
    return layers;
  }

  private static int layerOf(String pkg, List<String> layers) {
    for (int i = layers.size() - 1; i >= 0; i--) {
      String l = layers.get(i);
      boolean match = l.endsWith("[.*]") ? pkg.equals(l.substring(0, l.length() - 4))
          || pkg.startsWith(l.substring(0, l.length() - 4) + ".") : pkg.equals(l);
      if (match) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void noPackageCycles() {
    assertEquals(List.of(), GRAPH.cycles());
  }

  @Test
  void everyPackageUsesOnlyTheLayersListedAboveIt() throws IOException {
    List<String> layers = documentedLayers();
    assertTrue(layers.size() >= 5, "engine.md lists the packages: " + layers);
    List<String> wrong = new ArrayList<>();
    for (String pkg : GRAPH.packages()) {
      int mine = layerOf(pkg, layers);
      if (mine < 0) {
        wrong.add(pkg + " is not listed in docs/engine.md");
        continue;
      }
      Set<String> uses = GRAPH.uses(pkg);
      for (String used : uses) {
        int theirs = layerOf(used, layers);
        // Sub-packages of one layer (io.csv uses io) share it.
        if (theirs > mine) {
          wrong.add(pkg + " uses " + used + ", which engine.md lists below it");
        }
      }
    }
    assertEquals(List.of(), wrong);
  }
}
