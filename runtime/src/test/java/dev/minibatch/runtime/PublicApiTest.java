package dev.minibatch.runtime;

import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-runtime is what {@code runtime/public-api.txt} lists; see {@link PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-runtime", Path.of("target", "classes"), Path.of("public-api.txt"));
  }
}
