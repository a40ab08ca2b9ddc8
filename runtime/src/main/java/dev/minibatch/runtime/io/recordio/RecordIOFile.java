package dev.minibatch.runtime.io.recordio;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.internal.io.Locations;
import dev.minibatch.runtime.internal.io.TextLines;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.spi.RangedFile;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A RecordIO file opened for reading by record number (dmlc's {@code RecordIOReader} and {@code
 * RecordIOChunkReader}, MXNet's {@code MXIndexedRecordIO}). Opening finds every record's offset,
 * either from an {@code .idx} index ({@code key\toffset} lines; each record is then checked when it
 * is read) or by walking the file's part headers (which checks the framing of the whole file
 * without reading payloads). {@link #read(int, ByteBuffer)} returns a record's payload with the
 * parts joined and the magic words between them put back, as dmlc's reader does.
 *
 * <p>By default a corrupt file is an error: a {@link FileFormatException} naming the file, the
 * record's index and its byte offset. With {@link Builder#skipCorrupt(boolean)} the walk instead
 * resynchronises at the next magic word that starts a record, as dmlc's input splitter does, and
 * reports every skipped stretch as a {@link RecordProblem}: nothing is dropped silently.
 *
 * <p>A local file is memory-mapped, so several threads may read records at once, each with its own
 * buffer, and an interrupted reader disturbs no other. A file on another file system ({@link
 * #builder(RangedFile)}) is read by byte ranges: one range per record read, and the walk without an
 * index reads the file in pieces of {@link #WALK_PIECE} bytes rather than one range per header.
 * Memory is bounded by the file: a length field is checked against the file's size before anything
 * is allocated for it.
 *
 * <pre>{@code
 * try (RecordIOFile rec = RecordIOFile.open(Path.of("train.rec"))) {
 *   ByteBuffer buffer = null;
 *   for (int i = 0; i < rec.records(); i++) {
 *     buffer = rec.read(i, buffer);   // grown when too small; reuse what it returns
 *     ...
 *   }
 * }
 * }</pre>
 */
public final class RecordIOFile implements AutoCloseable {
  /** The size of one mapped chunk: a mapping holds at most 2 GiB. */
  private static final int CHUNK = 1 << 30;
  /** One part-header buffer per reading thread: a read allocates nothing when its buffer fits. */
  private static final ThreadLocal<ByteBuffer> HEADERS =
      ThreadLocal.withInitial(() -> ByteBuffer.allocate(RecordParts.HEADER).order(ByteOrder.LITTLE_ENDIAN));

  /** The bytes of one read of the walk over a remote file. */
  static final int WALK_PIECE = 1 << 20;

  private final @Nullable Path path;
  private final String name;
  /** The file's bytes: the local file mapped, or a remote one read by ranges. */
  private final RangedFile bytes;
  private final boolean remote;
  private final long size;
  private volatile boolean closed;
  private final long[] offsets;
  private final long @Nullable [] keys;
  private final List<RecordProblem> problems;
  private @Nullable Map<Long, Integer> byKey;

  private RecordIOFile(Builder b) {
    this.path = b.path;
    RangedFile ranged = b.ranged;
    Path local = b.path;
    this.remote = ranged != null;
    this.bytes = ranged != null ? ranged : new MappedFile(java.util.Objects.requireNonNull(local, "path"));
    this.name = bytes.location();
    this.size = bytes.size();
    Path index = b.index;
    RangedFile rangedIndex = b.rangedIndex;
    try {
      List<RecordProblem> found = new ArrayList<>();
      if (index != null || rangedIndex != null) {
        long[][] idx = index != null ? readIndex(index.toString(), TextLines.read(index, INDEX_LINES))
            : readIndex(rangedIndex.location(), Locations.lines(rangedIndex, INDEX_LINES));
        this.keys = idx[0];
        this.offsets = idx[1];
      } else {
        this.keys = null;
        this.offsets = walk(b.skipCorrupt, p -> {
          found.add(p);
          b.problems.accept(p);
        });
      }
      this.problems = List.copyOf(found);
    } catch (RuntimeException | Error e) {
      bytes.close();
      throw e;
    } finally {
      if (rangedIndex != null) {
        rangedIndex.close();
      }
    }
  }

  private static final String INDEX_LINES = "key<TAB>offset lines";

  /**
   * Opens {@code rec} and walks its part headers; a corrupt file is an error.
   *
   * @throws FileFormatException naming the file, record and offset for bad framing
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public static RecordIOFile open(Path rec) {
    return builder(rec).open();
  }

  /**
   * Opens {@code rec} with its index {@code idx}.
   *
   * @throws FileFormatException naming the index and line for a malformed line (or bytes that are
   *     not UTF-8), a duplicate key or an offset outside the file
   */
  public static RecordIOFile open(Path rec, Path idx) {
    return builder(rec).index(idx).open();
  }

  /** A builder for the less common settings. */
  public static Builder builder(Path rec) {
    return new Builder(rec, null);
  }

  /**
   * A builder of a file on another file system, read by byte ranges ({@link
   * dev.minibatch.runtime.spi.RemoteFiles#open(String)}); closing the {@link RecordIOFile} closes it.
   */
  public static Builder builder(RangedFile rec) {
    return new Builder(null, rec);
  }

  /**
   * The local file.
   *
   * @throws IllegalStateException for a file opened with {@link #builder(RangedFile)}: see {@link #location()}
   */
  public Path path() {
    if (path == null) {
      throw new IllegalStateException(name + " is not a local file");
    }
    return path;
  }

  /** The file's path or remote location, for messages. */
  public String location() {
    return name;
  }

  /** The file's size in bytes. */
  public long size() {
    return size;
  }

  /** The number of records. */
  public int records() {
    return offsets.length;
  }

  /** The byte offset of record {@code record}'s first part. */
  public long offset(int record) {
    return offsets[check(record)];
  }

  /** Record {@code record}'s key: from the index, else its number. */
  public long key(int record) {
    long[] k = keys;
    return k == null ? check(record) : k[check(record)];
  }

  /**
   * The number of the record with key {@code key}, or -1 if there is none.
   */
  public synchronized int recordOf(long key) {
    long[] k = keys;
    if (k == null) {
      return key >= 0 && key < offsets.length ? (int) key : -1;
    }
    Map<Long, Integer> m = byKey;
    if (m == null) {
      m = new HashMap<>(k.length * 2);
      for (int i = 0; i < k.length; i++) {
        m.put(k[i], i);
      }
      byKey = m;
    }
    Integer i = m.get(key);
    return i == null ? -1 : i;
  }

  /** The corrupt stretches skipped while opening (empty unless {@code skipCorrupt} was set). */
  public List<RecordProblem> problems() {
    return problems;
  }

  private int check(int record) {
    if (record < 0 || record >= offsets.length) {
      throw new IndexOutOfBoundsException(name + ": record " + record + " of " + offsets.length);
    }
    return record;
  }

  /**
   * Reads record {@code record}'s payload into {@code reuse} when it is large enough, else into a
   * new direct buffer, and returns that buffer with position 0, limit the payload's length and
   * little-endian order (RecordIO's).
   *
   * @throws FileFormatException naming the file, record and offset when the record's parts are not
   *     well framed (possible when the file was opened with an index, or changed since)
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public ByteBuffer read(int record, @Nullable ByteBuffer reuse) {
    long start = offsets[check(record)];
    ByteBuffer out = reuse == null ? ByteBuffer.allocateDirect(4096) : reuse;
    out.clear().order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer header = HEADERS.get();
    long pos = start;
    boolean first = true;
    while (true) {
      header.clear();
      if (pos + RecordParts.HEADER > size) {
        throw error(record, pos, "the record's part header at offset " + pos + " runs past the end of the file ("
            + size + " bytes)");
      }
      readFully(header, pos);
      int magic = header.getInt(0);
      if (magic != RecordParts.MAGIC) {
        throw error(record, pos, "expected the magic word 0xCED7230A at offset " + pos + ", found " + hex(magic)
            + (keys != null ? " (is the index for this file?)" : ""));
      }
      int lrecord = header.getInt(4);
      int flag = RecordParts.flag(lrecord);
      int length = RecordParts.length(lrecord);
      boolean ok = first ? flag == RecordParts.WHOLE || flag == RecordParts.FIRST
          : flag == RecordParts.MIDDLE || flag == RecordParts.LAST;
      if (!ok) {
        throw error(record, pos, "part at offset " + pos + " has flag " + RecordParts.flagName(flag) + "; expected "
            + (first ? "0 or 1 (a record's start)" : "2 or 3 (a continuation of the record started at offset " + start
            + ")"));
      }
      if (pos + RecordParts.HEADER + length > size) {
        throw error(record, pos, "part at offset " + pos + " declares " + length + " payload bytes but the file ends "
            + (size - pos - RecordParts.HEADER) + " bytes after its header");
      }
      boolean more = flag == RecordParts.FIRST || flag == RecordParts.MIDDLE;
      long need = (long) out.position() + length + (more ? 4 : 0);
      if (need > Integer.MAX_VALUE - 8) {
        throw error(record, start, "the record's parts add up to more than 2 GiB");
      }
      if (need > out.capacity()) {
        ByteBuffer bigger = ByteBuffer.allocateDirect((int) Math.min(Integer.MAX_VALUE - 8, Math.max(need, 2L * out.capacity())));
        out.flip();
        bigger.put(out);
        out = bigger.order(ByteOrder.LITTLE_ENDIAN);
      }
      out.limit(out.position() + length);
      readFully(out, pos + RecordParts.HEADER);
      out.limit(out.capacity());
      pos += RecordParts.HEADER + RecordParts.padded(length);
      if (!more) {
        break;
      }
      out.putInt(RecordParts.MAGIC);
      first = false;
    }
    out.flip();
    return out;
  }

  /** Copies the file's bytes from {@code position} into {@code dst}'s remaining space (the caller checked the size). */
  private void readFully(ByteBuffer dst, long position) {
    if (closed) {
      throw new IllegalStateException(name + " is closed");
    }
    bytes.read(position, dst);
  }

  private FileFormatException error(int record, long offset, String message) {
    return new FileFormatException(name, "record " + record + " at offset " + offset + ": " + message);
  }

  private static String hex(int v) {
    return String.format("0x%08X", v);
  }

  /**
   * Walks the part headers from the start: the offsets of the records' first parts. In strict mode
   * the first problem is thrown; with {@code skip}, each corrupt stretch is reported and the walk
   * resumes at the next magic word that starts a record.
   */
  private long[] walk(boolean skip, Consumer<RecordProblem> report) {
    Window window = remote ? new Window() : null;
    LongList out = new LongList();
    ByteBuffer header = ByteBuffer.allocate(RecordParts.HEADER).order(ByteOrder.LITTLE_ENDIAN);
    long pos = 0;
    long start = -1;
    long record = 0;
    while (pos < size) {
      String problem = null;
      long at = pos;
      if (size - pos < RecordParts.HEADER) {
        problem = "the file ends " + (size - pos) + " bytes after the last part; a part header needs 8 bytes";
      } else {
        header.clear();
        if (window != null) {
          window.read(header, pos);
        } else {
          readFully(header, pos);
        }
        int magic = header.getInt(0);
        int lrecord = header.getInt(4);
        int flag = RecordParts.flag(lrecord);
        int length = RecordParts.length(lrecord);
        long end = pos + RecordParts.HEADER + RecordParts.padded(length);
        if (magic != RecordParts.MAGIC) {
          problem = "expected the magic word 0xCED7230A at offset " + pos + ", found " + hex(magic);
        } else if (start < 0 && flag != RecordParts.WHOLE && flag != RecordParts.FIRST) {
          problem = "part at offset " + pos + " has flag " + RecordParts.flagName(flag) + " where a record must start"
              + " (flag 0 or 1)";
        } else if (start >= 0 && flag != RecordParts.MIDDLE && flag != RecordParts.LAST) {
          problem = "the record started at offset " + start + " is not closed: the part at offset " + pos
              + " has flag " + RecordParts.flagName(flag) + " where 2 or 3 was expected";
          at = start;
        } else if (pos + RecordParts.HEADER + length > size) {
          problem = "part at offset " + pos + " declares " + length + " payload bytes but the file ends "
              + (size - pos - RecordParts.HEADER) + " bytes after its header";
        } else if (start >= 0 && pos + RecordParts.HEADER + length - start > Integer.MAX_VALUE - 8) {
          problem = "the record started at offset " + start + " has parts adding up to more than 2 GiB";
        } else {
          if (flag == RecordParts.WHOLE || flag == RecordParts.FIRST) {
            start = pos;
          }
          if (flag == RecordParts.WHOLE || flag == RecordParts.LAST) {
            out.add(start);
            start = -1;
            record++;
          }
          pos = Math.min(end, size);
          continue;
        }
      }
      if (start >= 0) {
        at = Math.min(at, start);
      }
      if (!skip) {
        throw error((int) record, at, problem);
      }
      long next = resync(at + 4);
      report.accept(new RecordProblem(name, (int) record, at, next - at, problem));
      pos = next;
      start = -1;
    }
    if (start >= 0) {
      String problem = "the file ends inside the record started at offset " + start + " (no part with flag 3)";
      if (!skip) {
        throw error((int) record, start, problem);
      }
      report.accept(new RecordProblem(name, (int) record, start, size - start, problem));
    }
    return out.toArray();
  }

  /**
   * The first 4-aligned offset at or after {@code from} holding a magic word whose part starts a
   * record and fits the file, or the file's size.
   */
  private long resync(long from) {
    long pos = (from + 3) & ~3L;
    ByteBuffer chunk = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    while (pos + RecordParts.HEADER <= size) {
      chunk.clear();
      chunk.limit((int) Math.min(chunk.capacity(), size - pos));
      readFully(chunk, pos);
      int n = chunk.limit();
      for (int i = 0; i + RecordParts.HEADER <= n; i += 4) {
        if (chunk.getInt(i) == RecordParts.MAGIC) {
          int lrecord = chunk.getInt(i + 4);
          int flag = RecordParts.flag(lrecord);
          if ((flag == RecordParts.WHOLE || flag == RecordParts.FIRST)
              && pos + i + RecordParts.HEADER + RecordParts.length(lrecord) <= size) {
            return pos + i;
          }
        }
      }
      // Step back so a header split across chunks is seen whole next time.
      pos += Math.max(4, n - RecordParts.HEADER + 4);
    }
    return size;
  }

  /** Reads the {@code key\toffset} lines of the index {@code idx}: keys and offsets, in the index's order. */
  private long[][] readIndex(String idx, List<String> lines) {
    LongList keyList = new LongList();
    LongList offsetList = new LongList();
    Map<Long, Integer> seen = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\\s+");
      if (f.length != 2) {
        throw new FileFormatException(idx, "line " + (i + 1) + ": expected 'key<TAB>offset', found '"
            + abbreviate(line) + "'");
      }
      long key;
      long offset;
      try {
        key = Long.parseLong(f[0]);
        offset = Long.parseLong(f[1]);
      } catch (NumberFormatException e) {
        throw new FileFormatException(idx, "line " + (i + 1) + ": key and offset must be integers, found '"
            + abbreviate(line) + "'");
      }
      if (offset < 0 || offset % 4 != 0 || offset + RecordParts.HEADER > size) {
        throw new FileFormatException(idx, "line " + (i + 1) + ": offset " + offset + " of key " + key
            + " is not a 4-aligned part start inside " + name + " (" + size + " bytes)");
      }
      Integer before = seen.put(key, i + 1);
      if (before != null) {
        throw new FileFormatException(idx, "line " + (i + 1) + ": key " + key + " was already on line "
            + before);
      }
      keyList.add(key);
      offsetList.add(offset);
    }
    return new long[][] {keyList.toArray(), offsetList.toArray()};
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  /** Closes the file: later reads fail (a mapping is released when it is garbage, a remote file at once). */
  @Override
  public void close() {
    closed = true;
    bytes.close();
  }

  @Override
  public String toString() {
    return "RecordIOFile[" + name + ", " + offsets.length + " records]";
  }

  /**
   * The last {@link #WALK_PIECE} bytes read of a remote file, for the walk: it reads the part headers
   * in order, so a piece serves every header in it with one request instead of one each.
   */
  private final class Window {
    private final ByteBuffer piece = ByteBuffer.allocate(WALK_PIECE);
    private long start = -1;

    /** Fills {@code dst} (a part header, shorter than a piece) with the bytes from {@code position}. */
    void read(ByteBuffer dst, long position) {
      int n = dst.remaining();
      if (start < 0 || position < start || position + n > start + piece.limit()) {
        start = position;
        piece.clear().limit((int) Math.min(WALK_PIECE, size - position));
        readFully(piece, position);
      }
      dst.put(dst.position(), piece, (int) (position - start), n);
      dst.position(dst.position() + n);
    }
  }

  /**
   * A local file mapped in chunks of {@link #CHUNK} bytes (the last one shorter). Mapped rather than
   * read through a channel: a positional channel read is interruptible, and the engine interrupts
   * reader threads when an epoch stops, which would close the channel under every other reader.
   * Reads from a mapping are plain copies.
   */
  private static final class MappedFile implements RangedFile {
    private final String name;
    private final MappedByteBuffer[] maps;
    private final long size;

    MappedFile(Path path) {
      this.name = path.toString();
      try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
        this.size = c.size();
        int chunks = (int) ((size + CHUNK - 1) / CHUNK);
        this.maps = new MappedByteBuffer[chunks];
        for (int i = 0; i < chunks; i++) {
          long from = (long) i * CHUNK;
          maps[i] = c.map(FileChannel.MapMode.READ_ONLY, from, Math.min(CHUNK, size - from));
        }
      } catch (IOException e) {
        throw IoFailure.of("open", path, e);
      }
    }

    @Override
    public String location() {
      return name;
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public void read(long position, ByteBuffer dst) {
      long at = position;
      try {
        while (dst.hasRemaining()) {
          int chunk = (int) (at / CHUNK);
          int offset = (int) (at % CHUNK);
          int n = Math.min(dst.remaining(), maps[chunk].limit() - offset);
          // Absolute bulk copy: the mapping's own position is shared by every reading thread.
          dst.put(dst.position(), maps[chunk], offset, n);
          dst.position(dst.position() + n);
          at += n;
        }
      } catch (InternalError e) {
        // The JVM's way of reporting a fault in a mapped file that shrank under it.
        throw new FileFormatException(name, "reading offset " + at + " failed: the file was truncated or changed "
            + "while open", e);
      }
    }

    @Override
    public void close() {
      // the mapping is released when it is garbage
    }
  }

  /** A growable list of longs (offsets of millions of records without boxing). */
  private static final class LongList {
    private long[] a = new long[64];
    private int n;

    void add(long v) {
      if (n == a.length) {
        a = Arrays.copyOf(a, a.length * 2);
      }
      a[n++] = v;
    }

    long[] toArray() {
      return Arrays.copyOf(a, n);
    }
  }

  /** Settings for opening a RecordIO file. */
  public static final class Builder {
    private final @Nullable Path path;
    private final @Nullable RangedFile ranged;
    private @Nullable Path index;
    private @Nullable RangedFile rangedIndex;
    private boolean skipCorrupt;
    private Consumer<RecordProblem> problems = p -> {};

    private Builder(@Nullable Path path, @Nullable RangedFile ranged) {
      this.path = path;
      this.ranged = ranged;
    }

    /** Read the records' offsets from this {@code .idx} file instead of walking the file. */
    public Builder index(@Nullable Path idx) {
      this.index = idx;
      this.rangedIndex = null;
      return this;
    }

    /**
     * Read the records' offsets from this {@code .idx} file on another file system, read whole and
     * closed when the record file opens.
     */
    public Builder rangedIndex(@Nullable RangedFile idx) {
      this.rangedIndex = idx;
      this.index = null;
      return this;
    }

    /**
     * Skip corrupt stretches, resuming at the next magic word that starts a record (dmlc's
     * behaviour), instead of failing; default false. Each skipped stretch is reported to {@link
     * #problems(Consumer)} and kept in {@link RecordIOFile#problems()}. Applies to the walk, not to
     * files opened with an index.
     */
    public Builder skipCorrupt(boolean skip) {
      this.skipCorrupt = skip;
      return this;
    }

    /** Called for each skipped stretch as it is found (for logging or counting). */
    public Builder problems(Consumer<RecordProblem> listener) {
      this.problems = listener;
      return this;
    }

    /**
     * Opens the file.
     *
     * @throws FileFormatException naming file, record and offset (or index line) for bad content
     * @throws UncheckedIOException naming the file if it cannot be read
     */
    public RecordIOFile open() {
      return new RecordIOFile(this);
    }
  }

  /**
   * A corrupt stretch of a RecordIO file that a reader skipped because it was asked to ({@link
   * RecordIOFile.Builder#skipCorrupt(boolean)}), as dmlc's splitter does when it resynchronises at
   * the next magic word.
   *
   * @param file the file
   * @param record the index the next good record has (the records kept before it are numbered
   *     {@code 0 .. record - 1})
   * @param offset the byte offset where the problem was found
   * @param skippedBytes the bytes skipped before the next good record (or the end of the file)
   * @param message what was expected and what was found
   */
  public record RecordProblem(String file, int record, long offset, long skippedBytes, String message) {
    @Override
    public String toString() {
      return file + ": at offset " + offset + " (before record " + record + "): " + message + "; skipped "
          + skippedBytes + " bytes";
    }
  }

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
  public static final class RecordIOWriter implements AutoCloseable {
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
        throw IoFailure.of("create", rec + (idx == null ? "" : " or " + idx), e);
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
        throw IoFailure.of("write", file, e);
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
        throw IoFailure.of("write", "the index of " + file, e);
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
        throw IoFailure.of("finish", file, e);
      }
    }
  }
}
