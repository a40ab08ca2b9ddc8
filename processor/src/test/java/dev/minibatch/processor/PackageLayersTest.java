package dev.minibatch.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.minibatch.apicheck.PackageGraph;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The processor's packages are three layers: the front-end-neutral model ({@code internal.model})
 * uses no other; the core ({@code internal}) uses only the model; the javac front end uses both.
 * So the core cannot reach javac's model, and the KSP front end can run it (checked with jdeps on
 * the compiled classes).
 */
class PackageLayersTest {
  private static final PackageGraph GRAPH = PackageGraph.of(Path.of("target", "classes"), "dev.minibatch.processor");

  @Test
  void theModelUsesNoOtherPackageAndTheCoreOnlyTheModel() {
    assertEquals(Set.of(), GRAPH.uses("dev.minibatch.processor.internal.model"));
    assertEquals(Set.of("dev.minibatch.processor.internal.model"), GRAPH.uses("dev.minibatch.processor.internal"));
    assertEquals(List.of(), GRAPH.cycles());
  }
}
