package dev.minibatch.shards;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * A Parquet output file on a Hadoop file system that counts its bytes and their CRC-32C as they
 * are written, for the shard index; it refuses to replace an existing file. A file of the local
 * file system is written through a {@link FileChannel} from one direct buffer: Hadoop's local
 * stream ends in {@code FileOutputStream}, whose native write allocates and copies a buffer of each
 * write's size (fresh pages to fault in for every 1 MiB page Parquet writes; docs/performance.md,
 * "Writing pages from the rows' bytes").
 */
final class CrcOutputFile implements OutputFile {
  /** The output stream's buffer. */
  private static final int WRITE_BUFFER = 1 << 20;

  private final FileSystem fs;
  private final Path path;
  private final java.io.@Nullable File local;
  private final ByteBuffer buffer;
  private final CRC32C crc = new CRC32C();
  private long length;

  /**
   * The file {@code path} of {@code fs}; {@code local}, the same file when {@code fs} is the local file
   * system, written from {@code buffer} (a {@link #buffer()}, which the caller may reuse once this
   * file is closed).
   */
  CrcOutputFile(FileSystem fs, Path path, java.io.@Nullable File local, ByteBuffer buffer) {
    this.fs = fs;
    this.path = path;
    this.local = local;
    this.buffer = buffer;
  }

  /** A buffer for local files: a writer keeps one for all the files it writes, one after another. */
  static ByteBuffer buffer() {
    return ByteBuffer.allocateDirect(WRITE_BUFFER);
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    java.io.File file = local;
    // Parquet writes a page in one call; through Hadoop's default 4 KiB buffer that reached
    // FileOutputStream directly, which copies it into a new native buffer each time: a 1 MiB
    // buffer doubled the writer's rate (docs/performance.md, "Writing shards against the machine's write").
    return counted(file != null ? channel(file) : fs.create(path, false, WRITE_BUFFER));
  }

  /** {@code out}, its bytes counted and summed as they are written. */
  private PositionOutputStream counted(OutputStream out) {
    return new PositionOutputStream() {
      @Override
      public long getPos() {
        return length;
      }

      @Override
      public void write(int b) throws IOException {
        out.write(b);
        crc.update(b);
        length++;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        crc.update(b, off, len);
        length += len;
      }

      @Override
      public void flush() throws IOException {
        out.flush();
      }

      @Override
      public void close() throws IOException {
        out.close();
      }
    };
  }

  /** A new local file (an existing one is refused, as {@code fs.create(path, false)} refuses it), written from a direct buffer. */
  private OutputStream channel(java.io.File file) throws IOException {
    java.nio.file.Path p = file.toPath();
    java.nio.file.Files.createDirectories(p.getParent());
    FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      // The permissions Hadoop's local file system gives a new file: 666 less the configuration's umask.
      java.nio.file.Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(FsPermission.getFileDefault()
          .applyUMask(FsPermission.getUMask(fs.getConf())).toString()));
    } catch (UnsupportedOperationException e) {
      // A file system without POSIX permissions: nothing to set.
    } catch (IOException | RuntimeException e) {
      try (ch) {
        java.nio.file.Files.deleteIfExists(p);
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    buffer.clear();
    return new OutputStream() {
      private long written;

      @Override
      public void write(int b) throws IOException {
        if (!buffer.hasRemaining()) {
          flush();
        }
        buffer.put((byte) b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
          if (!buffer.hasRemaining()) {
            flush();
          }
          int n = Math.min(len, buffer.remaining());
          buffer.put(b, off, n);
          off += n;
          len -= n;
        }
      }

      @Override
      public void flush() throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
          written += ch.write(buffer);
        }
        buffer.clear();
      }

      @Override
      public void close() throws IOException {
        if (!ch.isOpen()) {
          return;
        }
        try (ch) {
          flush();
        }
        // Counted as Hadoop's local stream counts a write, so Spark's executor metrics see it.
        @SuppressWarnings("deprecation")
        FileSystem.Statistics stats = FileSystem.getStatistics(fs.getUri().getScheme(), RawLocalFileSystem.class);
        stats.incrementBytesWritten(written);
        stats.incrementWriteOps(1);
      }
    };
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return create(blockSizeHint);
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return path.toString();
  }

  /** The bytes written. */
  long length() {
    return length;
  }

  /** The CRC-32C of the bytes written. */
  int crc32c() {
    return (int) crc.getValue();
  }
}
