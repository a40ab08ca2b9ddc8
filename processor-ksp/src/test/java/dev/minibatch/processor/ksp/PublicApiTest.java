package dev.minibatch.processor.ksp;

import dev.minibatch.apicheck.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The public API of minibatch-processor-ksp is what {@code processor-ksp/public-api.txt} lists; see {@link PublicApi}. */
class PublicApiTest {
  @Test
  void theCompiledPublicApiIsTheListedOne() {
    PublicApi.check("minibatch-processor-ksp", Path.of("target", "classes"), Path.of("public-api.txt"));
  }
}
