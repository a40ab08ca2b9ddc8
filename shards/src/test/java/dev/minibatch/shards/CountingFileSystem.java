package dev.minibatch.shards;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * The local disk under the scheme {@code sharefs}, so that Hadoop's own statistics of the bytes read
 * through it ({@link FileSystem#getAllStatistics()}, kept per scheme) count one test's reads alone.
 */
public final class CountingFileSystem extends SchemedLocalFileSystem {
  static final String SCHEME = "sharefs";

  /** A configuration that reads {@code sharefs://} URIs with this file system. */
  static Configuration conf() {
    Configuration conf = conf(SCHEME, CountingFileSystem.class);
    return conf;
  }

  /** The bytes read through {@code sharefs} so far, by Hadoop's statistics. */
  @SuppressWarnings("deprecation")
  static long bytesRead() {
    long n = 0;
    for (FileSystem.Statistics s : FileSystem.getAllStatistics()) {
      if (SCHEME.equals(s.getScheme())) {
        n += s.getBytesRead();
      }
    }
    return n;
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }
}
