package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Files of the project's shared data folder ({@code ../shared/data} beside the checkout), read in
 * place: their licences forbid copying them into the repository. The folder is the system property
 * {@value #PROPERTY}, which this module's surefire configuration sets to the checkout's {@code
 * ../shared/data}; a clone elsewhere (CI's fresh clone) falls back to {@value #FALLBACK}. A missing
 * file fails the test, naming both places and the property: the tests that need these files are
 * never skipped silently.
 */
final class SharedData {
  static final String PROPERTY = "minibatch.sharedData";
  static final String FALLBACK = "/work/shared/data";

  private SharedData() {}

  /** The file {@code relative} (to the shared data folder), which exists. */
  static Path file(String relative) {
    List<String> tried = new ArrayList<>();
    String configured = System.getProperty(PROPERTY);
    for (String folder : configured == null ? List.of(FALLBACK) : List.of(configured, FALLBACK)) {
      Path candidate = Path.of(folder).resolve(relative).toAbsolutePath().normalize();
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
      tried.add(candidate.toString());
    }
    return fail("the shared data file " + relative + " is not found: tried " + String.join(" and ", tried)
        + " (system property " + PROPERTY + (configured == null ? " is not set" : " is " + configured)
        + "; shards/pom.xml sets it to the checkout's ../shared/data). Run with -D" + PROPERTY
        + "=/path/to/shared/data, the folder holding " + relative + " (listed in its SOURCES.md)");
  }
}
