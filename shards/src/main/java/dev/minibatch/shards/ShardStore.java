package dev.minibatch.shards;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.spi.Seeds;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.jspecify.annotations.Nullable;

/**
 * The directory of a shard set on a Hadoop file system: a local path or a {@code file://}, {@code
 * hdfs://}, {@code s3a://} (any scheme the class path has a FileSystem for) URI. It owns its own
 * FileSystem instance (not Hadoop's shared cache, which would outlive the provider) and closes it.
 */
final class ShardStore implements AutoCloseable {
  private static final String IN_PROGRESS = ".inprogress";
  /** The bytes of one read of a shard file: small enough to stay in the processor's cache for its checksum. */
  static final int PIECE = 1 << 20;
  private final URI directory;
  private final FileSystem fs;
  private final Path root;
  private final java.util.concurrent.atomic.LongAdder bytesRead = new java.util.concurrent.atomic.LongAdder();
  /** Told the bytes of every whole file read (the read-ahead stage's counters); none by default. */
  private volatile java.util.function.LongConsumer onRead = n -> { };
  private final @Nullable Retries retries;
  // The seed of the retries' jitter: drawn per store, so trainers that failed together wait apart.
  private final long jitter = Seeds.unseeded();

  private ShardStore(URI directory, FileSystem fs, @Nullable Retries retries) {
    this.directory = directory;
    this.fs = fs;
    this.root = new Path(directory);
    this.retries = retries;
  }

  /**
   * The directory {@code location}: a URI with a scheme, or a local path.
   *
   * @throws IllegalArgumentException if no file system serves the URI's scheme
   * @throws UncheckedIOException if the file system cannot be reached
   */
  static ShardStore open(String location, Configuration conf) {
    return open(location, conf, null);
  }

  /**
   * The directory {@code location}, its reads ({@link #readFully}, {@link #readText}) tried again after
   * transient failures as {@code retries} says; with retries, S3A's own are turned off unless {@code conf}
   * sets them ({@link Retries#quietS3a}), so that one attempt is one request. Without, the file system's
   * own retries only (what the writer and {@code ShardSet.open} use).
   *
   * @throws IllegalArgumentException if no file system serves the URI's scheme
   * @throws UncheckedIOException if the file system cannot be reached
   */
  static ShardStore open(String location, Configuration conf, @Nullable Retries retries) {
    URI uri = uri(location);
    if (retries != null) {
      conf = new Configuration(conf);
      Retries.quietS3a(conf);
    }
    try {
      FileSystem fs = FileSystem.newInstance(uri, conf);
      // The index holds every shard file's CRC-32C, which the reader checks over the whole file: a second
      // check by the file system (HDFS's per-chunk checksums on the client, the .crc files beside local
      // files) would read and sum every byte again.
      fs.setVerifyChecksum(false);
      if (fs instanceof LocalFileSystem) {
        fs.setWriteChecksum(false);
      }
      return new ShardStore(uri, fs, retries);
    } catch (org.apache.hadoop.fs.UnsupportedFileSystemException e) {
      throw new IllegalArgumentException("no Hadoop FileSystem for '" + uri.getScheme() + "' on the class path (" + location
          + "): s3a needs org.apache.hadoop:hadoop-aws, see docs/shards.md", e);
    } catch (IOException e) {
      throw IoFailure.of("reach", location, e);
    }
  }

  /** {@code location} as a URI: one with a scheme as given, else a local path made absolute. */
  static URI uri(String location) {
    try {
      URI u = new URI(location);
      if (u.getScheme() != null && u.getScheme().length() > 1) {
        String s = u.toString();
        return s.endsWith("/") ? u : new URI(s + "/");
      }
    } catch (URISyntaxException e) {
      // a local path with characters a URI does not allow
    }
    URI u = Paths.get(location).toAbsolutePath().normalize().toUri();
    String s = u.toString();
    return s.endsWith("/") ? u : URI.create(s + "/");
  }

  /** The directory, for messages. */
  URI directory() {
    return directory;
  }

  /** The file {@code name} of the directory. */
  Path path(String name) {
    return new Path(root, name);
  }

  /** {@code name}'s location, for messages. */
  String where(String name) {
    return directory + name;
  }

  boolean exists(String name) {
    try {
      return fs.exists(path(name));
    } catch (IOException e) {
      throw IoFailure.of("read", where(name), e);
    }
  }

  /**
   * The whole file {@code name}, which must be {@code length} bytes long, in a new array.
   *
   * @throws FileFormatException if it is missing or its length is not {@code length}
   * @throws UncheckedIOException if it cannot be read
   */
  byte[] readFully(String name, long length) {
    byte[] out = new byte[checkedLength(name, length)];
    read(name, length, ByteBuffer.wrap(out));
    return out;
  }

  /**
   * Reads the whole file {@code name}, which must be {@code length} bytes long, into {@code into}
   * from index 0 (its position and limit unchanged), and returns its CRC-32C: summed piece by piece
   * as the pieces arrive, while they are still in the processor's cache, so the sum costs no second
   * pass over the file from memory. A file of the local file system is read with a channel straight
   * into a direct buffer (one copy from the page cache); Hadoop's statistics count it as Hadoop's
   * own read would.
   *
   * @throws FileFormatException if it is missing or its length is not {@code length}
   * @throws UncheckedIOException if it cannot be read
   */
  int read(String name, long length, ByteBuffer into) {
    int n = checkedLength(name, length);
    if (into.capacity() < n) {
      throw new IllegalArgumentException("a buffer of " + into.capacity() + " bytes for a file of " + n);
    }
    java.io.File local = localFile(name);
    return attempt("read", where(name), () -> local != null ? readLocal(name, local, n, into) : readOnce(name, n, into));
  }

  /**
   * A local file mapped into memory, read-only, with what identifies its bytes: its length, time of
   * change and file key (inode) when it was mapped, unchanged across the mapping, or null if they
   * changed meanwhile.
   */
  record Mapped(MappedByteBuffer buffer, @Nullable Object identity) {
    /** The file's bytes. */
    ByteBuffer bytes() {
      return buffer.slice();
    }

    /** Unmaps it; no one may read {@link #bytes()} after. */
    void unmap() {
      Unmapping.unmap(buffer);
    }
  }

  /**
   * The file {@code name} of the local file system, if this store is the local file system (a
   * subclass of it, as tests use, is read through its own streams), else null.
   */
  java.io.@Nullable File localFile(String name) {
    return fs.getClass() == LocalFileSystem.class ? ((LocalFileSystem) fs).pathToFile(path(name)) : null;
  }

  /**
   * Maps the local file {@code file} (the file {@code name}, which must be {@code length} bytes long):
   * its bytes are the page cache's, read by the batches without a copy. Counted as read, as {@link
   * #read} counts a file.
   *
   * @throws FileFormatException if it is missing or its length is not {@code length}
   * @throws UncheckedIOException if it cannot be mapped
   */
  Mapped map(String name, long length, java.io.File file) {
    int n = checkedLength(name, length);
    return attempt("read", where(name), () -> {
      java.nio.file.Path p = file.toPath();
      try {
        Mapped mapped = mapIfLength(p, n);
        if (mapped == null) {
          throw changed(name, java.nio.file.Files.size(p), n);
        }
        counted(n);
        @SuppressWarnings("deprecation")
        FileSystem.Statistics stats = FileSystem.getStatistics(fs.getUri().getScheme(), RawLocalFileSystem.class);
        stats.incrementBytesRead(n);
        stats.incrementReadOps(1);
        return mapped;
      } catch (java.nio.file.NoSuchFileException e) {
        throw missing(name, e);
      }
    });
  }

  /**
   * Maps the local file {@code p}, read-only, if it is {@code length} bytes long, else returns null;
   * with its identity if that did not change while it was mapped.
   *
   * @throws java.nio.file.NoSuchFileException if it is missing
   */
  static @Nullable Mapped mapIfLength(java.nio.file.Path p, int length) throws IOException {
    Object before = identity(p);
    MappedByteBuffer mapped;
    try (FileChannel in = FileChannel.open(p, StandardOpenOption.READ)) {
      if (in.size() != length) {
        return null;
      }
      mapped = in.map(FileChannel.MapMode.READ_ONLY, 0, length);
    }
    Object after = identity(p);
    return new Mapped(mapped, before.equals(after) ? before : null);
  }

  /** What identifies a local file's bytes: its length, time of change and file key. */
  private static Object identity(java.nio.file.Path p) throws IOException {
    java.nio.file.attribute.BasicFileAttributes a = java.nio.file.Files.readAttributes(p,
        java.nio.file.attribute.BasicFileAttributes.class);
    return java.util.Arrays.asList(a.size(), a.lastModifiedTime(), a.fileKey());
  }

  /** {@code length} as an array's, refused beyond what one array holds. */
  int checkedLength(String name, long length) {
    if (length > Integer.MAX_VALUE - 16) {
      throw new FileFormatException(where(name), "the index says it is " + length + " bytes; a shard file holds at most"
          + " 2 GiB");
    }
    return (int) length;
  }

  /**
   * One read of the whole file {@code name} into {@code out}, in pieces of {@link #PIECE} bytes (a
   * read of a whole file at once into a heap array would have Java copy it through a native buffer of
   * its size, mapped afresh by each read); into a direct buffer where the stream reads into one
   * (HDFS's does), else through one heap piece. A stream that ends early on a file of the index's
   * length is an {@link EOFException}. Returns the CRC-32C.
   */
  private int readOnce(String name, int length, ByteBuffer out) throws IOException {
    try (FSDataInputStream in = openWhole(name, length)) {
      CRC32C crc = new CRC32C();
      boolean buffers = out.isDirect() && in.hasCapability(StreamCapabilities.READBYTEBUFFER);
      boolean array = !buffers && out.hasArray();
      byte[] piece = buffers ? null : array ? out.array() : new byte[Math.min(PIECE, length)];
      int n = 0;
      while (n < length) {
        int want = Math.min(PIECE, length - n);
        int r;
        if (piece == null) {
          r = in.read(out.slice(n, want));
          if (r > 0) {
            crc.update(out.slice(n, r));
          }
        } else if (array) {
          int at = out.arrayOffset() + n;
          r = in.read(piece, at, want);
          if (r > 0) {
            crc.update(piece, at, r);
          }
        } else {
          r = in.read(piece, 0, want);
          if (r > 0) {
            crc.update(piece, 0, r);
            out.put(n, piece, 0, r);
          }
        }
        if (r <= 0) {
          break;
        }
        n += r;
      }
      if (n < length || in.read() >= 0) {
        long actual = fs.getFileStatus(path(name)).getLen();
        if (actual == length) {
          // The file is whole: the connection ended early (an object store's response cut short).
          throw new EOFException("the stream ended after " + n + " of the file's " + length + " bytes");
        }
        throw changed(name, actual, length);
      }
      counted(n);
      return (int) crc.getValue();
    } catch (FileNotFoundException e) {
      throw missing(name, e);
    }
  }

  /** One read of the local file {@code file} (the file {@code name}) into {@code out}, with a channel, in pieces. */
  private int readLocal(String name, java.io.File file, int length, ByteBuffer out) throws IOException {
    try (FileChannel in = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
      long actual = in.size();
      if (actual != length) {
        throw changed(name, actual, length);
      }
      CRC32C crc = new CRC32C();
      int n = 0;
      while (n < length) {
        ByteBuffer piece = out.slice(n, Math.min(PIECE, length - n));
        int r = in.read(piece);
        if (r <= 0) {
          throw changed(name, in.size(), length); // cut while it was read
        }
        crc.update(out.slice(n, r));
        n += r;
      }
      counted(n);
      // As Hadoop's local stream counts a read: the bytes, and one operation per file read.
      @SuppressWarnings("deprecation")
      FileSystem.Statistics stats = FileSystem.getStatistics(fs.getUri().getScheme(), RawLocalFileSystem.class);
      stats.incrementBytesRead(n);
      stats.incrementReadOps(1);
      return (int) crc.getValue();
    } catch (java.nio.file.NoSuchFileException e) {
      throw missing(name, e);
    }
  }

  private void counted(int n) {
    bytesRead.add(n);
    onRead.accept(n);
  }

  private FileFormatException changed(String name, long actual, long length) {
    return new FileFormatException(where(name), "the file is " + actual + " bytes, the index says " + length
        + ": the file was changed or cut after the index was written");
  }

  private FileFormatException missing(String name, IOException e) {
    return new FileFormatException(where(name), "the shard file is missing (the index " + ShardIndex.NAME
        + " lists it)", e);
  }

  /** {@code read}, tried again after transient failures when the store has retries, else once. */
  private <T> T attempt(String action, String where, Retries.Read<T> read) {
    if (retries != null) {
      return retries.run(action, where, jitter, read);
    }
    try {
      return read.read();
    } catch (IOException e) {
      throw IoFailure.of(action, where, e);
    }
  }

  /**
   * Opens {@code name} to be read once from start to end. The standard open-file options tell an object
   * store the length (S3A then skips the request for the file's status) and that the whole file is wanted
   * (one ranged request instead of random-access reads); file systems that do not know them ignore them.
   */
  private FSDataInputStream openWhole(String name, long length) throws IOException {
    try {
      return fs.openFile(path(name))
          .opt("fs.option.openfile.read.policy", "whole-file")
          .opt("fs.option.openfile.length", Long.toString(length))
          .build()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while opening " + where(name));
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw IoFailure.of("open", where(name), new IOException(e.getCause()));
    }
  }

  /** Tells {@code listener} the bytes of every shard file read from now on. */
  void onRead(java.util.function.LongConsumer listener) {
    this.onRead = java.util.Objects.requireNonNull(listener, "listener");
  }

  /** The bytes of shard files {@link #readFully} has read whole so far. */
  long bytesRead() {
    return bytesRead.sum();
  }

  /** The text file {@code name}. */
  String readText(String name) {
    return attempt("read", where(name), () -> {
      try (InputStream in = fs.open(path(name))) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (FileNotFoundException e) {
        throw new FileFormatException(where(name), "no shard index: " + directory + " is not a shard set (a directory"
            + " written by ShardWriter holds " + ShardIndex.NAME + ")", e);
      }
    });
  }

  /**
   * Publishes the text file {@code name} whole or not at all: the text goes to a hidden file of its
   * own ({@link #inProgress}), closed, then renamed to {@code name} (atomic on local disks and HDFS;
   * on an object store the object appears whole when written). A writer killed before the rename
   * leaves only the hidden file, which readers never open and a retried write removes.
   *
   * @throws IllegalArgumentException if {@code name} exists already (another writer published it)
   * @throws UncheckedIOException if the file system fails
   */
  void publishText(String name, String text) {
    Path staged = path("_" + name + "." + UUID.randomUUID() + IN_PROGRESS);
    try {
      try (OutputStream out = fs.create(staged, false)) {
        out.write(text.getBytes(StandardCharsets.UTF_8));
      }
      if (!fs.rename(staged, path(name))) {
        if (fs.exists(path(name))) {
          throw new IllegalArgumentException(directory + " holds " + name + " already: another writer committed it");
        }
        throw new IOException("the file system refused to rename " + staged.getName() + " to " + name);
      }
    } catch (IOException e) {
      deleteQuietly(staged);
      throw IoFailure.of("write", where(name), e);
    } catch (RuntimeException e) {
      deleteQuietly(staged);
      throw e;
    }
  }

  /** Whether {@code name} is a file {@link #publishText} left unfinished (or its local checksum). */
  static boolean inProgress(String name) {
    return (name.startsWith("_") || name.startsWith("._")) && (name.endsWith(IN_PROGRESS)
        || name.endsWith(IN_PROGRESS + ".crc"));
  }

  /** The names of the directory's files, empty if it does not exist. */
  List<String> names() {
    try {
      if (!fs.exists(root)) {
        return List.of();
      }
      List<String> names = new ArrayList<>();
      for (FileStatus f : fs.listStatus(root)) {
        names.add(f.getPath().getName());
      }
      return names;
    } catch (IOException e) {
      throw IoFailure.of("list", directory, e);
    }
  }

  /** Deletes the file {@code name}. */
  void delete(String name) {
    try {
      fs.delete(path(name), false);
    } catch (IOException e) {
      throw IoFailure.of("delete", where(name), e);
    }
  }

  private void deleteQuietly(Path p) {
    try {
      fs.delete(p, false);
    } catch (IOException | RuntimeException ignored) {
      // the write failed already; a leftover hidden file is removed by the next write
    }
  }

  FileSystem fileSystem() {
    return fs;
  }

  @Override
  public void close() {
    try {
      fs.close();
    } catch (IOException e) {
      throw IoFailure.of("close", "the file system of " + directory, e);
    }
  }
}
