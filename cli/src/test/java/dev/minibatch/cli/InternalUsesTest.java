package dev.minibatch.cli;

import dev.minibatch.apicheck.InternalUses;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The command line uses only the runtime internals {@code cli/internal-uses.txt} lists; see {@code InternalUses}. */
class InternalUsesTest {
  @Test
  void itUsesOnlyTheListedRuntimeInternals() {
    InternalUses.check("minibatch-cli", Path.of("target", "classes"), Path.of("internal-uses.txt"));
  }
}
