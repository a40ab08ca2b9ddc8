package dev.minibatch.shards;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * The local disk under a scheme of a test's own ({@code slowfs}, {@code pausefs}), keeping the
 * configuration it was made with, so that a test file system only overrides what it changes.
 */
public abstract class SchemedLocalFileSystem extends RawLocalFileSystem {
  /** For subclasses. */
  protected SchemedLocalFileSystem() {}

  // A method, not a field: RawLocalFileSystem's constructor asks for the URI before ours runs.
  @Override
  public abstract String getScheme();

  @Override
  public URI getUri() {
    return URI.create(getScheme() + ":///");
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
  }
}
