package dev.minibatch.shards;

import java.io.IOException;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet output file on a Hadoop file system that counts its bytes and their CRC-32C as they
 * are written, for the shard index; it refuses to replace an existing file.
 */
final class CrcOutputFile implements OutputFile {
  /** The output stream's buffer. */
  private static final int WRITE_BUFFER = 1 << 20;

  private final FileSystem fs;
  private final Path path;
  private final CRC32C crc = new CRC32C();
  private long length;

  CrcOutputFile(FileSystem fs, Path path) {
    this.fs = fs;
    this.path = path;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    // Parquet writes a page in one call; through Hadoop's default 4 KiB buffer that reached
    // FileOutputStream directly, which copies it into a new native buffer each time: a 1 MiB
    // buffer doubled the writer's rate (docs/performance.md, "Writing shards against the machine's write").
    FSDataOutputStream out = fs.create(path, false, WRITE_BUFFER);
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
