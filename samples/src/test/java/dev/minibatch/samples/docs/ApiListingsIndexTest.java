package dev.minibatch.samples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/index.md, "The public API listing", names every module's checked-in listing: a module that
 * gains a {@code public-api.txt} is listed there too, so a reader looking for a module's API finds it.
 */
class ApiListingsIndexTest {
  @Test
  void theIndexNamesEveryModulesApiListing() throws IOException {
    Path root = DocSnippetsTest.ROOT;
    List<String> listings = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      modules.filter(m -> Files.isRegularFile(m.resolve("public-api.txt")))
          .forEach(m -> listings.add(m.getFileName() + "/public-api.txt"));
    }
    // api, runtime, processor, kotlin, spark, shards, processor-ksp have one at the time of writing.
    assertTrue(listings.size() >= 7, "listings found under " + root + ": " + listings);
    String index = Files.readString(root.resolve("docs/index.md"));
    List<String> missing = listings.stream().filter(l -> !index.contains("`" + l + "`")).sorted().toList();
    assertEquals(List.of(), missing, "docs/index.md does not name these API listings");
  }
}
