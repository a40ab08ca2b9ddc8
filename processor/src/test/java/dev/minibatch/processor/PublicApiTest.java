package dev.minibatch.processor;

import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-processor is what {@code processor/public-api.txt} lists; see {@link PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-processor", Path.of("target", "classes"), Path.of("public-api.txt"));
  }
}
