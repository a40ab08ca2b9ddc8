package dev.minibatch.runtime.io.recordio;

import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Writes a RecordIO file (dmlc's {@code RecordIOWriter}, MXNet's {@code MXRecordIO} and {@code
 * MXIndexedRecordIO} in write mode) and, optionally, its {@code .idx} index of {@code
 * key\toffset} lines.
 *
 * <p>A payload that contains the magic word at a 4-byte aligned position is split there into
 * parts (flags 1, 2, 3) and the magic word itself is left out; readers put it back. So any byte
 * sequence round-trips. A payload must be shorter than 2<sup>29</sup> bytes, as in dmlc.
 *
 * <pre>{@code
 * try (RecordIOWriter out = RecordIOWriter.create(dir.resolve("data.rec"), dir.resolve("data.idx"))) {
 *   out.write(0, payload0);
 *   out.write(1, payload1);
 * }
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class RecordIOWriter implements AutoCloseable {
  private static final byte[] ZEROS = new byte[4];

  private final Path file;
  private final OutputStream out;
  private final @Nullable BufferedWriter index;
  private final byte[] header = new byte[RecordParts.HEADER];
  private final ByteBuffer headerView = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
  private long position;
  private long records;
  private boolean closed;

  private RecordIOWriter(Path file, @Nullable Path indexFile) throws IOException {
    this.file = file;
    this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
    BufferedWriter w = null;
    try {
      w = indexFile == null ? null : Files.newBufferedWriter(indexFile, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      out.close();
      throw e;
    }
    this.index = w;
  }

  /**
   * A writer of {@code rec} (created or truncated) without an index.
   *
   * @throws UncheckedIOException naming the file if it cannot be created
   */
  public static RecordIOWriter create(Path rec) {
    return open(rec, null);
  }

  /**
   * A writer of {@code rec} and its index {@code idx} (both created or truncated); records are
   * written with {@link #write(long, byte[])}.
   *
   * @throws UncheckedIOException naming the file if one cannot be created
   */
  public static RecordIOWriter create(Path rec, Path idx) {
    return open(rec, idx);
  }

  private static RecordIOWriter open(Path rec, @Nullable Path idx) {
    try {
      return new RecordIOWriter(rec, idx);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + rec + (idx == null ? "" : " or " + idx), e);
    }
  }

  /**
   * Appends one record.
   *
   * @return the record's byte offset in the file (what an index stores)
   * @throws IllegalArgumentException if the payload has 2<sup>29</sup> bytes or more
   * @throws IllegalStateException after {@link #close()}
   */
  public long write(byte[] payload) {
    return write(ByteBuffer.wrap(payload));
  }

  /**
   * Appends the bytes between {@code payload}'s position and limit as one record; the buffer's
   * position is left unchanged.
   *
   * @return the record's byte offset in the file
   * @throws IllegalArgumentException if the payload has 2<sup>29</sup> bytes or more
   * @throws IllegalStateException after {@link #close()}
   */
  public long write(ByteBuffer payload) {
    if (closed) {
      throw new IllegalStateException(file + ": the writer is closed");
    }
    int length = payload.remaining();
    if (length > RecordParts.MAX_PART) {
      throw new IllegalArgumentException(file + ": record " + records + " has " + length
          + " bytes; RecordIO records must be shorter than 2^29 = " + (RecordParts.MAX_PART + 1L) + " bytes");
    }
    long start = position;
    int base = payload.position();
    ByteBuffer le = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    try {
      // Split at every aligned magic word, as dmlc's writer does, so readers never mistake
      // payload bytes for the start of a part.
      int done = 0;
      int aligned = length & ~3;
      for (int i = 0; i < aligned; i += 4) {
        if (le.getInt(base + i) == RecordParts.MAGIC) {
          part(done == 0 ? RecordParts.FIRST : RecordParts.MIDDLE, payload, base + done, i - done);
          done = i + 4;
        }
      }
      part(done == 0 ? RecordParts.WHOLE : RecordParts.LAST, payload, base + done, length - done);
      int pad = (int) (RecordParts.padded(length - done) - (length - done));
      out.write(ZEROS, 0, pad);
      position += pad;
      records++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return start;
  }

  /**
   * Appends one record and writes {@code key\toffset} to the index.
   *
   * @return the record's byte offset in the file
   * @throws IllegalStateException if the writer has no index, or after {@link #close()}
   * @throws IllegalArgumentException if the payload has 2<sup>29</sup> bytes or more
   */
  public long write(long key, byte[] payload) {
    BufferedWriter w = index;
    if (w == null) {
      throw new IllegalStateException(file + ": this writer has no index; create it with create(rec, idx)");
    }
    long offset = write(payload);
    try {
      w.write(key + "\t" + offset + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the index of " + file, e);
    }
    return offset;
  }

  private void part(int flag, ByteBuffer payload, int from, int length) throws IOException {
    headerView.putInt(0, RecordParts.MAGIC);
    headerView.putInt(4, RecordParts.lrecord(flag, length));
    out.write(header);
    if (payload.hasArray()) {
      out.write(payload.array(), payload.arrayOffset() + from, length);
    } else {
      byte[] copy = new byte[Math.min(length, 1 << 16)];
      for (int done = 0; done < length; done += copy.length) {
        int n = Math.min(copy.length, length - done);
        payload.get(from + done, copy, 0, n);
        out.write(copy, 0, n);
      }
    }
    position += RecordParts.HEADER + length;
  }

  /** The number of records written. */
  public long records() {
    return records;
  }

  /** The number of bytes written so far: the offset of the next record. */
  public long position() {
    return position;
  }

  /**
   * Flushes and closes the file and the index. Idempotent.
   *
   * @throws UncheckedIOException naming the file if flushing fails
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try (OutputStream o = out; BufferedWriter w = index) {
      o.flush();
      if (w != null) {
        w.flush();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot finish " + file, e);
    }
  }
}
