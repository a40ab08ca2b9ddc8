package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.spi.RangedFile;
import dev.minibatch.runtime.spi.RemoteFiles;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * A file given as a location string: a local path (or {@code file:} URI), or a URI with a scheme
 * that a {@link RemoteFiles} reads. A one-letter scheme is a Windows drive, not a file system.
 */
public final class Locations {
  private Locations() {}

  /** The local file {@code location} names, or null when it is a URI of another file system. */
  public static @Nullable Path local(String location) {
    String scheme = scheme(location);
    if (scheme == null) {
      return Path.of(location);
    }
    if (scheme.equals("file")) {
      return Path.of(URI.create(location));
    }
    return null;
  }

  /** {@code location}'s URI scheme in lower case, or null for a plain path. */
  private static @Nullable String scheme(String location) {
    try {
      String s = new URI(location).getScheme();
      return s == null || s.length() < 2 ? null : s.toLowerCase(Locale.ROOT);
    } catch (URISyntaxException e) {
      return null; // a local path with characters a URI does not allow
    }
  }

  /**
   * Opens the remote {@code location} with {@code files}, or with the first {@link RemoteFiles} on the
   * class path that reads its scheme.
   *
   * @param who the reader and setting, for the message, e.g. {@code "ImageRecordProvider.pathImgrec"}
   * @throws IllegalArgumentException naming the location and the module to add when nothing reads
   *     its scheme
   */
  public static RangedFile open(String location, @Nullable RemoteFiles files, String who) {
    String scheme = scheme(location);
    if (scheme == null) {
      throw new IllegalArgumentException(location + " is a local path, not a remote location");
    }
    if (files != null) {
      if (!files.reads(scheme)) {
        throw new IllegalArgumentException(who + ": the RemoteFiles given (" + files.getClass().getName()
            + ") does not read '" + scheme + "' locations (" + location + ")");
      }
      return files.open(location);
    }
    for (RemoteFiles f : ServiceLoader.load(RemoteFiles.class, Locations.class.getClassLoader())) {
      if (f.reads(scheme)) {
        return f.open(location);
      }
    }
    throw new IllegalArgumentException(who + ": nothing on the class path reads '" + scheme + "' locations ("
        + location + "): add the artifact dev.minibatch:minibatch-shards, which reads hdfs://, s3a:// and every scheme "
        + "Hadoop has a FileSystem for (s3a also needs org.apache.hadoop:hadoop-aws), or copy the file to a local disk");
  }

  /**
   * The lines of the small text file {@code file} (an index, an image list), read whole, as {@link
   * TextLines} reads a local one.
   *
   * @param what what the file should hold, for the message
   * @throws FileFormatException naming the file if it is too large for one array or not UTF-8
   */
  public static List<String> lines(RangedFile file, String what) {
    long size = file.size();
    if (size > Integer.MAX_VALUE - 8) {
      throw new FileFormatException(file.location(), "is " + size + " bytes; expected a text file of " + what
          + " (at most 2 GiB)");
    }
    ByteBuffer bytes = ByteBuffer.allocate((int) size);
    file.read(0, bytes);
    return TextLines.read(file.location(), bytes.array(), what);
  }
}
