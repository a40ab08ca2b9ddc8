package dev.minibatch;

import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-api is what {@code api/public-api.txt} lists; see {@link PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-api", Path.of("target", "classes"), Path.of("public-api.txt"));
  }
}
