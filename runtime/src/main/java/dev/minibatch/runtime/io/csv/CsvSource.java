package dev.minibatch.runtime.io.csv;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.internal.io.FileBytes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The content of one CSV file, read by offset in pieces: a file on disk, read straight from its
 * channel (so a large file never becomes one Java array), or content already in memory (an
 * inflated gzip file, or bytes a caller has). Positional reads are safe from several threads.
 */
abstract class CsvSource implements AutoCloseable {
  private final String name;

  private CsvSource(String name) {
    this.name = name;
  }

  /**
   * Opens {@code file}: a gzip file (recognised by its magic bytes) is inflated into memory, any
   * other is read from disk as it is parsed.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  static CsvSource open(Path file) {
    FileChannel channel;
    try {
      channel = FileChannel.open(file, StandardOpenOption.READ);
    } catch (IOException e) {
      throw IoFailure.of("read", file, e);
    }
    CsvSource source = new OnDisk(file.toString(), channel);
    byte[] head = new byte[2];
    int n = source.read(0, head, 0, 2);
    if (n == 2 && FileBytes.isGzip(head)) {
      source.close();
      return new InMemory(file.toString(), FileBytes.readAll(file));
    }
    return source;
  }

  /** {@code bytes} as the content of a file called {@code name}; the array is not copied. */
  static CsvSource of(String name, byte[] bytes) {
    return new InMemory(name, bytes);
  }

  /** The file's name, for messages. */
  final String name() {
    return name;
  }

  /** The content's length in bytes. */
  abstract long size();

  /**
   * Reads up to {@code length} bytes from {@code position} into {@code dst[offset...]}; returns how
   * many, fewer only at the end of the content.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  abstract int read(long position, byte[] dst, int offset, int length);

  /** The 1-based line of the byte at {@code offset}: for error messages only, so it reads from the start. */
  final long lineOf(long offset) {
    byte[] piece = new byte[1 << 16];
    long line = 1;
    for (long p = 0; p < offset; ) {
      int n = read(p, piece, 0, (int) Math.min(piece.length, offset - p));
      if (n <= 0) {
        break;
      }
      for (int i = 0; i < n; i++) {
        if (piece[i] == '\n') {
          line++;
        }
      }
      p += n;
    }
    return line;
  }

  @Override
  public void close() {}

  /** A file read through its channel. */
  private static final class OnDisk extends CsvSource {
    private final FileChannel channel;
    private final long size;

    OnDisk(String name, FileChannel channel) {
      super(name);
      this.channel = channel;
      try {
        this.size = channel.size();
      } catch (IOException e) {
        throw IoFailure.of("read", name, e);
      }
    }

    @Override
    long size() {
      return size;
    }

    @Override
    int read(long position, byte[] dst, int offset, int length) {
      ByteBuffer into = ByteBuffer.wrap(dst, offset, (int) Math.min(length, Math.max(0, size - position)));
      try {
        while (into.hasRemaining()) {
          int n = channel.read(into, position + into.position() - offset);
          if (n < 0) {
            break;
          }
        }
      } catch (IOException e) {
        throw IoFailure.of("read", name(), e);
      }
      return into.position() - offset;
    }

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        throw IoFailure.of("close", name(), e);
      }
    }
  }

  /** Content in a Java array. */
  private static final class InMemory extends CsvSource {
    private final byte[] bytes;

    InMemory(String name, byte[] bytes) {
      super(name);
      this.bytes = bytes;
    }

    @Override
    long size() {
      return bytes.length;
    }

    @Override
    int read(long position, byte[] dst, int offset, int length) {
      int n = (int) Math.max(0, Math.min(length, bytes.length - position));
      System.arraycopy(bytes, (int) position, dst, offset, n);
      return n;
    }
  }
}
