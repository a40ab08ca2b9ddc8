package dev.minibatch.spark;

import dev.minibatch.apicheck.InternalUses;
import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-spark is what {@code spark/public-api.txt} lists; see {@link PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-spark", Path.of("target", "classes"), Path.of("public-api.txt"));
  }

  @Test
  void itUsesOnlyTheListedRuntimeInternals() {
    InternalUses.check("minibatch-spark", Path.of("target", "classes"), Path.of("internal-uses.txt"));
  }
}
