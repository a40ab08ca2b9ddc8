package dev.minibatch.shards;

import dev.minibatch.apicheck.InternalUses;
import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-shards is what {@code shards/public-api.txt} lists; see {@code PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-shards", Path.of("target", "classes"), Path.of("public-api.txt"));
  }

  @Test
  void itUsesOnlyTheListedRuntimeInternals() {
    InternalUses.check("minibatch-shards", Path.of("target", "classes"), Path.of("internal-uses.txt"));
  }
}
