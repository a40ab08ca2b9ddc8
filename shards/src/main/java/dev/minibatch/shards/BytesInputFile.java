package dev.minibatch.shards;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A Parquet input file held in memory: a shard file read whole, checked, then decoded. */
final class BytesInputFile implements InputFile {
  private final byte[] bytes;

  BytesInputFile(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public long getLength() {
    return bytes.length;
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
        if (newPos < 0 || newPos > bytes.length) {
          throw new EOFException("seek to " + newPos + " outside a file of " + bytes.length + " bytes");
        }
        pos = (int) newPos;
      }

      @Override
      public int read() {
        return pos < bytes.length ? bytes[pos++] & 0xff : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (len == 0) {
          return 0;
        }
        int n = Math.min(len, bytes.length - pos);
        if (n <= 0) {
          return -1;
        }
        System.arraycopy(bytes, pos, b, off, n);
        pos += n;
        return n;
      }

      @Override
      public void readFully(byte[] b) throws IOException {
        readFully(b, 0, b.length);
      }

      @Override
      public void readFully(byte[] b, int off, int len) throws IOException {
        if (len > bytes.length - pos) {
          throw new EOFException("reading " + len + " bytes at " + pos + " of a file of " + bytes.length + " bytes");
        }
        System.arraycopy(bytes, pos, b, off, len);
        pos += len;
      }

      @Override
      public int read(ByteBuffer buf) {
        int n = Math.min(buf.remaining(), bytes.length - pos);
        if (n <= 0) {
          return buf.remaining() == 0 ? 0 : -1;
        }
        buf.put(bytes, pos, n);
        pos += n;
        return n;
      }

      @Override
      public void readFully(ByteBuffer buf) throws IOException {
        int n = buf.remaining();
        if (n > bytes.length - pos) {
          throw new EOFException("reading " + n + " bytes at " + pos + " of a file of " + bytes.length + " bytes");
        }
        buf.put(bytes, pos, n);
        pos += n;
      }
    };
  }
}
