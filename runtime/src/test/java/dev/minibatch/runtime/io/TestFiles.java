package dev.minibatch.runtime.io;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/** Paths of the real data files under {@code src/test/resources/io}. */
public final class TestFiles {
  private TestFiles() {}

  /** The path of resource {@code io/<relative>}. */
  public static Path resource(String relative) {
    URL url = TestFiles.class.getResource("/io/" + relative);
    if (url == null) {
      throw new IllegalArgumentException("no test resource io/" + relative);
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
