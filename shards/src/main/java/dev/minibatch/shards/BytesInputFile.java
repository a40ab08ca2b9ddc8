package dev.minibatch.shards;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet input file held in memory: a shard file read whole, checked, then decoded. Its bytes are
 * those between the buffer's position and limit at construction; streams read them by absolute
 * index, so several may read one buffer at once.
 */
final class BytesInputFile implements InputFile {
  private final ByteBuffer bytes;
  private final int length;

  BytesInputFile(byte[] bytes) {
    this(ByteBuffer.wrap(bytes));
  }

  BytesInputFile(ByteBuffer bytes) {
    this.bytes = bytes.slice();
    this.length = this.bytes.remaining();
  }

  @Override
  public long getLength() {
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    return new SeekableInputStream() {
      private int pos;

      @Override
      public long getPos() {
        return pos;
      }

      @Override
      public void seek(long newPos) throws IOException {
        if (newPos < 0 || newPos > length) {
          throw new EOFException("seek to " + newPos + " outside a file of " + length + " bytes");
        }
        pos = (int) newPos;
      }

      @Override
      public int read() {
        return pos < length ? bytes.get(pos++) & 0xff : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (len == 0) {
          return 0;
        }
        int n = Math.min(len, length - pos);
        if (n <= 0) {
          return -1;
        }
        bytes.get(pos, b, off, n);
        pos += n;
        return n;
      }

      @Override
      public void readFully(byte[] b) throws IOException {
        readFully(b, 0, b.length);
      }

      @Override
      public void readFully(byte[] b, int off, int len) throws IOException {
        if (len > length - pos) {
          throw new EOFException("reading " + len + " bytes at " + pos + " of a file of " + length + " bytes");
        }
        bytes.get(pos, b, off, len);
        pos += len;
      }

      @Override
      public int read(ByteBuffer buf) {
        int n = Math.min(buf.remaining(), length - pos);
        if (n <= 0) {
          return buf.remaining() == 0 ? 0 : -1;
        }
        buf.put(buf.position(), bytes, pos, n);
        buf.position(buf.position() + n);
        pos += n;
        return n;
      }

      @Override
      public void readFully(ByteBuffer buf) throws IOException {
        int n = buf.remaining();
        if (n > length - pos) {
          throw new EOFException("reading " + n + " bytes at " + pos + " of a file of " + length + " bytes");
        }
        buf.put(buf.position(), bytes, pos, n);
        buf.position(buf.position() + n);
        pos += n;
      }
    };
  }
}
