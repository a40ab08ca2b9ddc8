package dev.minibatch.shards;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

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

  /**
   * A configuration under which {@code scheme://} URIs are read and written by a new instance of
   * {@code type} each time (Hadoop's cache of file systems would hand a test the one another made).
   */
  public static Configuration conf(String scheme, Class<? extends SchemedLocalFileSystem> type) {
    Configuration conf = new Configuration();
    conf.set("fs." + scheme + ".impl", type.getName());
    conf.setBoolean("fs." + scheme + ".impl.disable.cache", true);
    return conf;
  }

  /** The stream of new file {@code f}: {@code out} itself, unless a subclass changes what writing it does. */
  protected FSDataOutputStream created(Path f, FSDataOutputStream out) throws IOException {
    return out;
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    return created(f, super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress));
  }

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    return created(f, super.create(f, overwrite, bufferSize, replication, blockSize, progress));
  }
}
