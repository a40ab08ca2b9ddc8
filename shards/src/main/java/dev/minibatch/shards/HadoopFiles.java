package dev.minibatch.shards;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.spi.RangedFile;
import dev.minibatch.runtime.spi.RemoteFiles;
import dev.minibatch.runtime.spi.Seeds;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.NoSuchFileException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Files on any Hadoop file system ({@code hdfs://}, {@code s3a://}, every scheme the class path has a
 * FileSystem for) read by byte ranges, for readers in the runtime that take a location, such as
 * {@code ImageRecordProvider.Builder.pathImgrec(String)} (docs/images.md, "Remote record files"). Found
 * with {@link java.util.ServiceLoader} (Hadoop's configuration from the class path), or given with a
 * configuration of its own:
 *
 * <pre>{@code
 * ImageRecordProvider.builder()
 *     .pathImgrec("s3a://bucket/train.rec").pathImgidx("s3a://bucket/train.idx")
 *     .remoteFiles(new HadoopFiles(conf))
 *     ...
 * }</pre>
 *
 * <p>Each read is tried again after a transient failure as a shard set's reads are (docs/shards.md,
 * "Retries", the default six attempts); S3A's own retries are off unless the configuration sets them.
 */
public final class HadoopFiles implements RemoteFiles {
  private final Configuration conf;

  /** Hadoop's configuration from the class path ({@code core-site.xml}, {@code hdfs-site.xml}). */
  public HadoopFiles() {
    this(new Configuration());
  }

  /** The file systems as {@code conf} configures them (endpoints, credentials); a copy is kept. */
  public HadoopFiles(Configuration conf) {
    this.conf = new Configuration(conf);
    Retries.quietS3a(this.conf);
  }

  /** Whether the class path has a Hadoop FileSystem for {@code scheme} (s3a needs hadoop-aws). */
  @Override
  public boolean reads(String scheme) {
    try {
      FileSystem.getFileSystemClass(scheme, conf);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public RangedFile open(String location) {
    URI uri;
    try {
      uri = new URI(location);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI: " + location, e);
    }
    Path path = new Path(uri);
    long jitter = Seeds.unseeded();
    FileSystem fs;
    try {
      fs = FileSystem.newInstance(uri, conf);
    } catch (IOException e) {
      throw IoFailure.of("reach", location, e);
    }
    try {
      FileStatus status = Retries.DEFAULT.run("open", location, jitter, () -> {
        try {
          return fs.getFileStatus(path);
        } catch (java.io.FileNotFoundException e) {
          NoSuchFileException missing = new NoSuchFileException(location);
          missing.initCause(e);
          throw missing;
        }
      });
      if (status.isDirectory()) {
        throw new IllegalArgumentException(location + " is a directory; expected a file");
      }
      return new HadoopRangedFile(location, fs, path, status.getLen(), jitter);
    } catch (RuntimeException | Error e) {
      closeQuietly(fs);
      throw e;
    }
  }

  private static void closeQuietly(FileSystem fs) {
    try {
      fs.close();
    } catch (IOException ignored) {
      // the failure being thrown says more
    }
  }

  @Override
  public String toString() {
    return "HadoopFiles";
  }
}
