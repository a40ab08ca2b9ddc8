package dev.minibatch.text;

import dev.minibatch.apicheck.InternalUses;
import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-text is what {@code text/public-api.txt} lists; see {@code PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-text", Path.of("target", "classes"), Path.of("public-api.txt"));
  }

  @Test
  void itUsesOnlyTheListedRuntimeInternals() {
    InternalUses.check("minibatch-text", Path.of("target", "classes"), Path.of("internal-uses.txt"));
  }
}
