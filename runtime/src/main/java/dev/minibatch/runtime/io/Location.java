package dev.minibatch.runtime.io;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link Format} reads: a local path, or a URI whose scheme names a file system ({@code
 * hdfs://namenode:8020/data/set}, {@code s3a://bucket/set}), with the properties that file system
 * needs to reach it (Hadoop's keys, such as {@code fs.s3a.endpoint}). A {@code file:} URI is a
 * local path. Immutable.
 *
 * <p>A format of local files reads {@link #path()}; a format that reads through a file system
 * library (the shard-set format of {@code minibatch-shards}) opens {@link #uri()} with {@link
 * #properties()}.
 */
public final class Location {
  private final @Nullable Path path;
  private final @Nullable URI uri;
  private final Map<String, String> properties;

  private Location(@Nullable Path path, @Nullable URI uri, Map<String, String> properties) {
    this.path = path;
    this.uri = uri;
    this.properties = java.util.Collections.unmodifiableMap(new TreeMap<>(properties));
  }

  /** The local path {@code path}, as given (relative paths stay relative, for messages). */
  public static Location of(Path path) {
    return new Location(Objects.requireNonNull(path, "path"), null, Map.of());
  }

  /**
   * {@code uri}: a local path if its scheme is {@code file}, else the URI.
   *
   * @throws IllegalArgumentException if {@code uri} has no scheme
   */
  public static Location of(URI uri) {
    if (uri.getScheme() == null) {
      throw new IllegalArgumentException(uri + ": a location URI needs a scheme (hdfs://, s3a://, file://)");
    }
    if (uri.getScheme().equalsIgnoreCase("file")) {
      return of(Path.of(uri));
    }
    return new Location(null, uri, Map.of());
  }

  /**
   * {@code text} as a command line gives it: a URI if it starts with a scheme of two or more letters
   * and {@code ://} or {@code :/} ({@code hdfs://host/set}, {@code file:/tmp/x}), else a local path
   * (so that {@code C:\data} stays a path).
   *
   * @throws IllegalArgumentException if it is neither a valid URI nor a valid path
   */
  public static Location parse(String text) {
    int colon = text.indexOf(':');
    if (colon > 1 && text.startsWith(":/", colon) && text.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
      try {
        return of(new URI(text));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException(text + ": not a valid URI: " + e.getMessage(), e);
      }
    }
    try {
      return of(Path.of(text));
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException(text + ": not a valid path: " + e.getMessage(), e);
    }
  }

  /** This location with {@code properties} added to the file system's properties (later wins). */
  public Location withProperties(Map<String, String> properties) {
    Map<String, String> all = new TreeMap<>(this.properties);
    all.putAll(properties);
    return new Location(path, uri, all);
  }

  /** Whether it is a local path (given as one, or as a {@code file:} URI). */
  public boolean isLocal() {
    return path != null;
  }

  /**
   * The local path.
   *
   * @throws IllegalArgumentException naming the location if it is not local
   */
  public Path path() {
    if (path == null) {
      throw new IllegalArgumentException(this + ": not a local path");
    }
    return path;
  }

  /** The location as a URI: the one given, or the local path's absolute {@code file:} URI. */
  public URI uri() {
    return uri != null ? uri : Objects.requireNonNull(path).toAbsolutePath().toUri();
  }

  /** The file system's properties (empty unless given), sorted by key. */
  public Map<String, String> properties() {
    return properties;
  }

  /** The last name of the path: the file or directory name, empty for a root. */
  public String name() {
    if (path != null) {
      Path f = path.getFileName();
      return f == null ? "" : f.toString();
    }
    String p = Objects.requireNonNull(uri).getPath();
    if (p == null) {
      return "";
    }
    p = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    return p.substring(p.lastIndexOf('/') + 1);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Location l && Objects.equals(path, l.path) && Objects.equals(uri, l.uri)
        && properties.equals(l.properties);
  }

  @Override
  public int hashCode() {
    return Objects.hash(path, uri, properties);
  }

  /** The path as given, or the URI: what messages name. */
  @Override
  public String toString() {
    return path != null ? path.toString() : Objects.requireNonNull(uri).toString();
  }
}
