package dev.minibatch.shards;

import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.spi.DTypes;
import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Writes a shard set: samples as Parquet files of {@link Builder#samplesPerFile(int)} samples each
 * and their index ({@value ShardIndex#NAME}). Each provided array is a required binary column of
 * little-endian bytes (docs/shards.md, "The format"): fixed-size for an array of fixed shape, of
 * variable length for one with a variable axis, whose value holds the sample's real steps (the
 * batch's padding is never stored). The files open in any Parquet reader (pyarrow, Spark, DuckDB).
 *
 * <p>One writer: {@link #write} writes one epoch of a provider into a new directory ({@code
 * part-00000.parquet}, …) and commits it. Several writers in parallel (Spark executors, an ETL's
 * own workers): each writes its segment of the samples with {@link #segment}, files {@code
 * part-PPPPP-FFFFF.parquet}, and hands the {@link WrittenSegment} it returns to one process, which
 * {@link #commit commits} the segments in their order. A writer is {@link Serializable}, so a task can
 * take it to its executor (its Hadoop configuration travels as Hadoop's own serial form).
 *
 * <pre>{@code
 * try (DigitProvider digits = DigitProvider.builder().samples(list).batchSize(1024).build()) {
 *   ShardSet set = ShardWriter.builder().samplesPerFile(10_000).build().write(digits, "hdfs://nn/data/digits");
 * }
 * }</pre>
 */
public final class ShardWriter implements Serializable {
  static {
    // Generated code writes samples with encoded images through GeneratedShards, which reaches this package so.
    GeneratedAccess.register();
  }

  private static final long serialVersionUID = 1L;

  /** The codec of the files' pages. */
  public enum Compression {
    /** No compression (the default): pages decode with one copy. */
    NONE(CompressionCodecName.UNCOMPRESSED),
    /** Snappy: fast, modest ratios. */
    SNAPPY(CompressionCodecName.SNAPPY),
    /** Zstandard: better ratios for data read over a network. */
    ZSTD(CompressionCodecName.ZSTD);

    private final CompressionCodecName codec;

    Compression(CompressionCodecName codec) {
      this.codec = codec;
    }
  }

  private final int samplesPerFile;
  private final Compression compression;
  /** The configuration the builder was given, or null: then {@link #conf} is a new default one, here and where a copy is deserialized. */
  private final transient @Nullable Configuration given;
  private final transient Configuration conf;

  private ShardWriter(int samplesPerFile, Compression compression, @Nullable Configuration given) {
    this.samplesPerFile = samplesPerFile;
    this.compression = compression;
    this.given = given != null ? new Configuration(given) : null;
    this.conf = given != null ? new Configuration(given) : new Configuration();
  }

  /** A writer with the default settings. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Writes one epoch of {@code provider} (the rows of each batch that are samples, not padding) as a
   * shard set in {@code directory}: a local path or a Hadoop URI ({@code file://}, {@code hdfs://},
   * {@code s3a://}). It is one {@link #segment} of the set, named without a segment number, and its
   * commit.
   *
   * @return the shard set written
   * @throws IllegalArgumentException if the directory holds files already, the provider gives no
   *     sample, or an array with a variable axis comes without its lengths
   * @throws UncheckedIOException if the file system fails
   */
  public ShardSet write(BatchProvider<? extends Batch> provider, String directory) {
    return write(directory, segment -> segment.write(provider));
  }

  /**
   * Writes {@code rows}, each one sample's values of {@code columns}, as a shard set in {@code
   * directory}, as {@link #write(BatchProvider, String)} writes a provider's: for samples that are
   * not batches (encoded images).
   */
  ShardSet write(List<Column> columns, Iterable<? extends Row> rows, String directory) {
    return write(directory, segment -> segment.write(columns, rows));
  }

  private ShardSet write(String directory, java.util.function.Consumer<Segment> samples) {
    try (ShardStore store = ShardStore.open(directory, conf)) {
      clearUncommitted(store);
      WrittenSegment written;
      try (Segment segment = new Segment(this, store, false, 0, "part-")) {
        samples.accept(segment);
        written = segment.finish();
      }
      if (written.files().isEmpty()) {
        throw new IllegalArgumentException("the provider gave no sample: a shard set holds at least one");
      }
      return commit(store, List.of(written));
    }
  }

  /**
   * Starts segment {@code segment} of a shard set written in parallel into {@code directory}: its files
   * are {@code part-PPPPP-FFFFF.parquet} ({@code PPPPP} the segment, {@code FFFFF} the file within it,
   * from 0). Files of these names left by an earlier attempt of the same segment (a retried task) are
   * replaced. Other segments write beside it at the same time; the set exists once {@link #commit}
   * wrote its index.
   *
   * @param segment the segment's place in the set's order, {@code >= 0}
   * @throws IllegalArgumentException if {@code segment < 0} or the directory holds a committed shard
   *     set already
   * @throws UncheckedIOException if the file system cannot be reached
   */
  public Segment segment(String directory, int segment) {
    Check.atLeast("segment", segment, 0);
    ShardStore store = ShardStore.open(directory, conf);
    try {
      refuseCommitted(store);
      return new Segment(this, store, true, segment, String.format(Locale.ROOT, "part-%05d-", segment));
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Writes the index of the segments written into {@code directory}, in the set's order: the samples of
   * segment 0's files in file order, then segment 1's, and so on (a file's first global index is the
   * running sum of the samples before it). Segments with no sample take no place.
   *
   * @param segmentsInOrder every segment {@code 0 .. k-1}, each once, in order of segment number ({@code k} is
   *     the list's length; a segment left out of the list whose files are in the directory is found by
   *     its files)
   * @return the shard set
   * @throws IllegalArgumentException if a segment is missing, listed twice or out of order, two segments
   *     name the same file, segments hold different arrays, no segment holds a sample, the directory
   *     holds an index already, or it holds {@code part-*.parquet} files that no listed segment wrote
   * @throws dev.minibatch.runtime.io.FileFormatException naming a file a segment wrote that is missing
   *     or of another length
   * @throws UncheckedIOException if the file system fails
   */
  public ShardSet commit(String directory, List<WrittenSegment> segmentsInOrder) {
    try (ShardStore store = ShardStore.open(directory, conf)) {
      return commit(store, segmentsInOrder);
    }
  }

  private ShardSet commit(ShardStore store, List<WrittenSegment> segments) {
    refuseCommitted(store);
    ShardIndex index = ShardIndex.of(segments);
    checkWritten(store, segments);
    // Published whole or not at all: a commit killed halfway leaves no index, so the set does not
    // exist and the commit can simply run again.
    store.publishText(ShardIndex.NAME, index.text());
    for (String name : store.names()) {
      if (ShardStore.inProgress(name)) {
        store.delete(name); // an earlier, killed commit's
      }
    }
    return new ShardSet(store.directory().toString(), index, conf);
  }

  /**
   * Makes {@code store} ready for a {@link #write}: a new or empty directory, or one that an
   * earlier write killed before its commit left (its shard files and unfinished index only), whose
   * files are deleted, so a killed job's retry needs no hand step.
   *
   * @throws IllegalArgumentException if it holds a committed set or files no writer of ours left
   */
  private static void clearUncommitted(ShardStore store) {
    refuseCommitted(store);
    List<String> names = store.names();
    List<String> foreign = new ArrayList<>();
    for (String name : names) {
      if (!leftover(name)) {
        foreign.add(name);
      }
    }
    if (!foreign.isEmpty()) {
      java.util.Collections.sort(foreign);
      throw new IllegalArgumentException(store.directory() + " already holds files that are not a shard set's: "
          + foreign + "; a shard set is written into an empty or new directory");
    }
    for (String name : names) {
      store.delete(name);
    }
  }

  /** Whether {@code name} is a file a writer of shard sets leaves before its commit. */
  private static boolean leftover(String name) {
    String plain = name.startsWith(".") && name.endsWith(".crc") ? name.substring(1, name.length() - 4) : name;
    return (plain.startsWith("part-") && plain.endsWith(".parquet")) || ShardStore.inProgress(name);
  }

  private static void refuseCommitted(ShardStore store) {
    if (store.exists(ShardIndex.NAME)) {
      throw new IllegalArgumentException(store.directory() + " holds a shard set already (" + ShardIndex.NAME + "): segments"
          + " are written into a new directory and committed once");
    }
  }

  /**
   * Every file the segments name is in the directory with the length its segment wrote, and no other
   * shard file is: a segment left out of the list (the last one, say, which the list's length cannot
   * reveal) leaves its files behind.
   */
  private static void checkWritten(ShardStore store, List<WrittenSegment> segments) {
    Map<String, Long> lengths = new HashMap<>();
    try {
      for (FileStatus f : store.fileSystem().listStatus(new Path(store.directory()))) {
        lengths.put(f.getPath().getName(), f.getLen());
      }
    } catch (FileNotFoundException e) {
      // no directory: every file is missing, reported below
    } catch (IOException e) {
      throw IoFailure.of("list", store.directory(), e);
    }
    java.util.Set<String> listed = new java.util.HashSet<>();
    for (WrittenSegment p : segments) {
      for (WrittenFile f : p.files()) {
        listed.add(f.name());
      }
    }
    List<String> stray = new ArrayList<>();
    for (String name : lengths.keySet()) {
      if (name.startsWith("part-") && name.endsWith(".parquet") && !listed.contains(name)) {
        stray.add(name);
      }
    }
    if (!stray.isEmpty()) {
      java.util.Collections.sort(stray);
      throw new IllegalArgumentException(store.directory() + " holds shard files that no listed segment wrote: " + stray
          + "; pass every segment's WrittenSegment to commit (a segment left out of the list, the last one say, is not"
          + " detected by the list alone), or delete these files if they are left from another attempt");
    }
    for (WrittenSegment p : segments) {
      for (WrittenFile f : p.files()) {
        Long length = lengths.get(f.name());
        if (length == null) {
          throw new FileFormatException(store.where(f.name()), "segment " + p.segment() + " wrote it, but it is missing");
        }
        if (length != f.bytes()) {
          throw new FileFormatException(store.where(f.name()), "the file is " + length + " bytes, segment " + p.segment()
              + " wrote " + f.bytes() + ": it was changed or cut after it was written");
        }
      }
    }
  }

  /**
   * One writer's segment of a shard set: the samples of the providers given to {@link #write}, in
   * order, as files of {@code samplesPerFile} samples (the last may hold fewer). Not thread-safe: one
   * thread writes a segment. {@link #close()} without {@link #finish()} deletes the files it wrote.
   */
  public static final class Segment implements AutoCloseable {
    private final ShardWriter writer;
    private final ShardStore store;
    private final boolean ownsStore;
    private final boolean replace;
    private final int number;
    private final String prefix;
    /** The files written, each added by the write that ends it (on the writes' thread). */
    private final List<WrittenFile> files = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<String> created = new ArrayList<>();
    /** Where this segment's files are opened, filled and ended, behind the rows gathered. */
    private final WriteBehind writes = WriteBehind.onItsOwnThread();
    /** The files not ended yet (their end is queued, or they are being filled): closed if the segment is given up. */
    private final java.util.Set<FileWriter> unended = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private @Nullable List<Column> columns;
    private @Nullable RowCursor cursor;
    /** The column buffers every file of this segment is written through. */
    private @Nullable ColumnChunks chunks;
    /** The buffer a local file is written from, for every file of this segment. */
    private @Nullable ByteBuffer writeBuffer;
    private @Nullable FileWriter out;
    private boolean failed;
    private boolean done;

    private Segment(ShardWriter writer, ShardStore store, boolean parallel, int number, String prefix) {
      this.writer = writer;
      this.store = store;
      this.ownsStore = parallel;
      this.replace = parallel;
      this.number = number;
      this.prefix = prefix;
    }

    /**
     * Appends one epoch of {@code provider} (the rows of each batch that are samples, not padding)
     * to this segment. A segment may take several providers; they must provide the same arrays.
     *
     * @return this segment
     * @throws IllegalArgumentException if the provider's arrays differ from those written before, or
     *     one with a variable axis comes without its lengths
     * @throws IllegalStateException if the segment is finished or closed
     * @throws UncheckedIOException if the file system fails
     */
    public Segment write(BatchProvider<? extends Batch> provider) {
      checkWritable();
      return append(provider, ShardColumns.of(provider.provideData(), provider.provideLabel()), null, 0);
    }

    /**
     * Appends one epoch of {@code provider}, a generated provider over samples {@code base, base + 1,
     * ...} of what is written, in their order, that leaves its encoded images undecoded, as the columns
     * {@code fields}: an encoded-image column's value is the sample's bytes ({@code bytes}, by the
     * row's sample index in the provider's source), every other column the batch's row.
     */
    Segment writeEncoded(BatchProvider<? extends Batch> provider, List<SampleSchema.Field> fields,
        dev.minibatch.shards.internal.GeneratedShards.EncodedBytes bytes, long base) {
      checkWritable();
      return append(provider, fields.stream().map(Column::new).toList(), bytes, base);
    }

    /**
     * The one loop appending a provider's epoch: each batch's sample rows, as {@code given}; with
     * {@code bytes}, the encoded-image columns' values from the samples themselves.
     */
    private Segment append(BatchProvider<? extends Batch> provider, List<Column> given,
        dev.minibatch.shards.internal.GeneratedShards.@Nullable EncodedBytes bytes, long base) {
      RowCursor row = begin(given);
      // Per column, the current row's encoded image, or null for a column the batch's row holds.
      byte[][] encoded = new byte[given.size()][];
      Row out = bytes == null ? row : new Row() {
        @Override
        public byte[] bytes(int i) {
          return encoded[i] != null ? encoded[i] : row.bytes(i);
        }

        @Override
        public int length(int i) {
          return encoded[i] != null ? encoded[i].length : row.length(i);
        }

        // An encoded column is binary; a fixed one is the batch's, copied straight from its memory.
        @Override
        public int fixedLength(int i) {
          return row.fixedLength(i);
        }

        @Override
        public void copyTo(int i, byte[] to, int at) {
          row.copyTo(i, to, at);
        }
      };
      boolean ok = false;
      try {
        java.util.Iterator<? extends Batch> batches = provider.iterator();
        while (true) {
          Batch batch;
          try {
            if (!batches.hasNext()) {
              break;
            }
            batch = batches.next();
          } catch (RuntimeException e) {
            if (base == 0) {
              throw e;
            }
            // The provider counts its samples from 0: say where they start among those written.
            throw new IllegalArgumentException("writing samples " + base + " on (a sample i below is sample " + base
                + " + i): " + e.getMessage(), e);
          }
          row.load(batch);
          for (int r = 0; r < batch.countSamples(); r++) {
            row.row = r;
            if (bytes != null) {
              long sample = batch.sampleIndex(r);
              for (int i = 0; i < encoded.length; i++) {
                if (given.get(i).encoded()) {
                  byte[] b = bytes.bytes(sample, i);
                  if (b == null || b.length == 0) {
                    throw new IllegalArgumentException("sample " + (base + sample) + "'s encoded image '"
                        + given.get(i).name() + "' has no bytes; expected an encoded image (JPEG, PNG)");
                  }
                  encoded[i] = b;
                }
              }
            }
            append(out);
          }
        }
        ok = true;
      } finally {
        failed |= !ok;
      }
      return this;
    }

    /** Appends {@code rows}, each one sample's values of {@code given}, as {@link #write(BatchProvider)} appends a provider's. */
    Segment write(List<Column> given, Iterable<? extends Row> rows) {
      checkWritable();
      begin(given);
      boolean ok = false;
      try {
        for (Row row : rows) {
          append(row);
        }
        ok = true;
      } finally {
        failed |= !ok;
      }
      return this;
    }

    /**
     * Refuses a write to a segment that is finished, closed, or whose last write failed (its buffers
     * may still be in a file write's hands).
     */
    private void checkWritable() {
      if (done) {
        throw new IllegalStateException("segment " + number + " is finished or closed; write before finish()");
      }
      if (failed) {
        throw new IllegalStateException("a write of segment " + number + " failed; close() it and write the segment again");
      }
    }

    /** The cursor of a provider giving {@code given}: the columns of the first, which every later one must give. */
    private RowCursor begin(List<Column> given) {
      List<Column> cs = columns;
      if (cs == null) {
        columns = given;
        cursor = new RowCursor(given);
      } else if (!cs.equals(given)) {
        throw new IllegalArgumentException("segment " + number + " holds the arrays\n" + ShardColumns.text(cs)
            + "the provider gives\n" + ShardColumns.text(given) + "a segment's providers must give the same arrays");
      }
      return Objects.requireNonNull(cursor);
    }

    /** Writes one sample, into a new file when the last one is full. */
    private void append(Row row) {
      List<Column> cs = Objects.requireNonNull(columns);
      FileWriter f = out;
      if (f == null) {
        ColumnChunks c = chunks;
        if (c == null) {
          c = chunks = new ColumnChunks(cs, writer.compression.codec, writer.conf, writes);
        }
        ByteBuffer wb = writeBuffer;
        if (wb == null) {
          wb = writeBuffer = CrcOutputFile.buffer();
        }
        String name = prefix + String.format(Locale.ROOT, "%05d.parquet", created.size());
        created.add(name);
        f = new FileWriter(store, name, cs, c, wb, replace, writes, unended);
        out = f;
      }
      f.write(row);
      if (f.samples == writer.samplesPerFile) {
        f.finish(files);
        out = null;
      }
    }

    /**
     * Closes the last file and describes the files written, for {@link ShardWriter#commit}.
     *
     * @throws IllegalStateException if a {@link #write} failed or the segment is finished or closed
     * @throws UncheckedIOException if the file system fails
     */
    public WrittenSegment finish() {
      if (done) {
        throw new IllegalStateException("segment " + number + " is finished or closed already");
      }
      if (failed) {
        throw new IllegalStateException("a write of segment " + number + " failed; close() it and write the segment again");
      }
      FileWriter f = out;
      boolean ok = false;
      try {
        if (f != null) {
          f.finish(files);
          out = null;
        }
        writes.await();
        // The thread ends once it finds nothing queued: joined here, so none outlives the segment.
        writes.close();
        ok = true;
      } finally {
        failed |= !ok;
      }
      done = true;
      List<Column> cs = columns;
      RowCursor rc = cursor;
      WrittenSegment written = new WrittenSegment(number, cs == null ? "" : ShardColumns.text(cs), files,
          rc == null ? new int[0] : rc.longest);
      releaseCodecs();
      if (ownsStore) {
        store.close();
      }
      return written;
    }

    /** Does nothing after {@link #finish()}; before it, stops writing and deletes the files this segment wrote. */
    @Override
    public void close() {
      if (done) {
        return;
      }
      done = true;
      out = null;
      try {
        // No write runs on the files after this: they can be closed and deleted.
        writes.close();
        ColumnChunks c = chunks;
        if (c != null) {
          c.clear();
        }
        for (FileWriter f : unended) {
          f.abandon();
        }
        for (String name : created) {
          try {
            store.fileSystem().delete(store.path(name), false);
          } catch (IOException | RuntimeException e) {
            // The segment failed or was given up; its files are not in any index, a leftover is harmless.
          }
        }
      } finally {
        releaseCodecs();
        if (ownsStore) {
          store.close();
        }
      }
    }

    /** Returns the codecs' pooled buffers; the segment writes no more files. */
    private void releaseCodecs() {
      ColumnChunks c = chunks;
      chunks = null;
      if (c != null) {
        c.release();
      }
    }
  }

  /**
   * The files one {@link Segment} wrote, in order: what {@link ShardWriter#commit} needs of it.
   * Serializable, so a Spark task or any worker can send it to the process that commits.
   */
  public static final class WrittenSegment implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int segment;
    private final String columns;
    private final List<WrittenFile> files;
    private final int[] longest;

    WrittenSegment(int segment, String columns, List<WrittenFile> files, int[] longest) {
      this.segment = segment;
      this.columns = columns;
      this.files = List.copyOf(files);
      this.longest = longest.clone();
    }

    /** The segment's number, its place in the set's order. */
    public int segment() {
      return segment;
    }

    /** The files, in order; empty for a segment of no sample. */
    public List<WrittenFile> files() {
      return files;
    }

    /** The samples of all its files. */
    public long samples() {
      long n = 0;
      for (WrittenFile f : files) {
        n += f.samples();
      }
      return n;
    }

    /** The arrays' description lines ({@code name role dtype dims}); empty when nothing was written. */
    String columns() {
      return columns;
    }

    /** Per column, the most steps a sample of this segment holds along its variable axis (0 for a fixed column). */
    int[] longest() {
      return longest.clone();
    }

    @Override
    public String toString() {
      return "segment " + segment + ": " + samples() + " samples in " + files.size() + " files";
    }
  }

  /**
   * One file a {@link Segment} wrote.
   *
   * @param name the file name, in the shard set's directory
   * @param samples its samples
   * @param bytes its length
   * @param crc32c the CRC-32C of its bytes
   */
  public record WrittenFile(String name, int samples, long bytes, int crc32c) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /** One shard file being written: its pages written from the rows' bytes by the segment's {@link ColumnChunks}. */
  private static final class FileWriter {
    final String name;
    final ShardStore store;
    final CrcOutputFile file;
    /** The file's Parquet writer, once the writes' thread has opened it. */
    volatile @Nullable ParquetFileWriter parquet;
    final ColumnChunks chunks;
    final List<Column> columns;
    final WriteBehind writes;
    final boolean replace;
    final java.util.Set<FileWriter> unended;
    int samples;

    /** A new file, opened by the next of {@code writes}, in {@code unended} until its end is written. */
    FileWriter(ShardStore store, String name, List<Column> columns, ColumnChunks chunks, ByteBuffer buffer,
        boolean replace, WriteBehind writes, java.util.Set<FileWriter> unended) {
      this.name = name;
      this.unended = unended;
      this.store = store;
      this.columns = columns;
      this.chunks = chunks;
      this.writes = writes;
      this.replace = replace;
      this.file = new CrcOutputFile(store.fileSystem(), store.path(name), store.localFile(name), buffer);
      unended.add(this);
      writes.submit(this::open);
      chunks.start(this::parquet, name);
    }

    /** Creates and starts the file (on the writes' thread). */
    private void open() {
      Path path = store.path(name);
      ParquetFileWriter parquet;
      try {
        if (replace) {
          // A retried task writes the same samples under the same name; the earlier attempt's file goes.
          store.fileSystem().delete(path, false);
        }
        parquet = chunks.newFile(file);
      } catch (IOException e) {
        throw ColumnChunks.writeFailure(store.where(name), e);
      }
      try {
        parquet.start();
      } catch (IOException | RuntimeException e) {
        // The file exists now but is not the segment's yet: closed and deleted here, not left behind.
        try {
          parquet.close();
          store.fileSystem().delete(path, false);
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e instanceof IOException io ? ColumnChunks.writeFailure(store.where(name), io) : (RuntimeException) e;
      }
      this.parquet = parquet;
    }

    /** The file's Parquet writer: asked for by writes after the one that opened it. */
    ParquetFileWriter parquet() {
      return Objects.requireNonNull(parquet, "the file is not open");
    }

    void write(Row row) {
      chunks.write(row);
      samples++;
    }

    /** Hands the file's last rows and its end to the writes; the end adds the file to {@code into}. */
    void finish(List<WrittenFile> into) {
      chunks.flush();
      int n = samples;
      writes.submit(() -> {
        try {
          parquet().end(ShardColumns.metadata(columns));
        } catch (IOException e) {
          throw ColumnChunks.writeFailure(name, e);
        }
        unended.remove(this);
        into.add(new WrittenFile(name, n, file.length(), file.crc32c()));
      });
    }

    /** Closes the file, given up, once the writes are closed (the caller deletes it). */
    void abandon() {
      ParquetFileWriter opened = parquet;
      if (opened == null) {
        return;
      }
      try {
        opened.close();
      } catch (IOException | RuntimeException e) {
        // The write failed already; that failure is the one to report.
      }
    }
  }

  /**
   * One sample as the Parquet writer takes it: per column, its value's bytes (a scalar's
   * little-endian bytes, an array's, an encoded image's).
   */
  interface Row {
    /** Column {@code i}'s value: the first {@link #length(int)} bytes of the array returned, valid until the next row. */
    byte[] bytes(int i);

    /** The bytes of the value {@link #bytes(int)} returned last for column {@code i}. */
    int length(int i);

    /** The bytes of fixed-size column {@code i}'s value (every row's): what {@link #copyTo} copies. */
    default int fixedLength(int i) {
      bytes(i);
      return length(i);
    }

    /**
     * Copies fixed-size column {@code i}'s value ({@link #fixedLength} bytes) to {@code out} at
     * {@code at}; a row over a batch copies it from the batch's memory, without {@link #bytes}'s
     * copy in between.
     */
    default void copyTo(int i, byte[] out, int at) {
      System.arraycopy(bytes(i), 0, out, at, length(i));
    }
  }

  /**
   * Where the writer reads the row being written: the current batch's arrays and a row. A variable
   * array's row is its sample's real steps, cut from the batch's padded row by the batch's lengths.
   */
  static final class RowCursor implements Row {
    final List<Column> columns;
    /**
     * The arrays {@link #arrays} read: a copy made here is referenced by nothing else, and ND4J frees
     * its memory once the array is unreachable, under the buffer still in use.
     */
    final INDArray[] held;
    final ByteBuffer[] arrays;
    final int[] offsets;
    final byte[][] rowBytes;
    /** Per column, the bytes of the current row in {@link #rowBytes} (its real steps for a variable one). */
    final int[] rowLength;
    /** Per variable column, the steps of the batch's padded rows and the batch's lengths. */
    final int[] batchSteps;
    final int[][] lengths;
    /** Per column, the most steps a row written so far held (0 for a fixed column). */
    final int[] longest;
    int row;

    RowCursor(List<Column> columns) {
      this.columns = columns;
      int n = columns.size();
      this.held = new INDArray[n];
      this.arrays = new ByteBuffer[n];
      this.offsets = new int[n];
      this.rowBytes = new byte[n][];
      this.rowLength = new int[n];
      this.batchSteps = new int[n];
      this.lengths = new int[n][];
      this.longest = new int[n];
      for (int i = 0; i < n; i++) {
        rowBytes[i] = new byte[columns.get(i).variable() ? 0 : columns.get(i).rowBytes()];
        rowLength[i] = rowBytes[i].length;
      }
    }

    /** Points at {@code batch}'s arrays. */
    void load(Batch batch) {
      if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
        throw new UnsupportedOperationException("shard files are little-endian; this machine is big-endian");
      }
      for (int i = 0; i < arrays.length; i++) {
        Column c = columns.get(i);
        INDArray a = batch.get(c.name());
        if (a.dataType() != DTypes.toNd4j(c.dtype())) {
          throw new IllegalArgumentException("array '" + c.name() + "' of the batch is " + a.dataType() + ", the provider"
              + " describes it as " + c.dtype());
        }
        if (c.variable()) {
          INDArray l = batch.lengths(c.name());
          if (l == null) {
            throw new IllegalArgumentException("array '" + c.name() + "' has a variable axis, but the batch gives no"
                + " lengths for it (batch.lengths(\"" + c.name() + "\")); a shard column stores each sample's real"
                + " steps");
          }
          lengths[i] = l.toIntVector();
          batchSteps[i] = (int) a.size(c.shape().variableAxis() + 1);
        }
        if (a.isView() || a.ordering() != 'c') {
          a = a.dup('c');
        }
        held[i] = a;
        arrays[i] = a.data().asNio().order(ByteOrder.LITTLE_ENDIAN);
        offsets[i] = Math.toIntExact(a.offset() * a.data().getElementSize());
      }
    }

    /**
     * Row {@link #row} of column {@code i} as bytes, in a buffer reused for every row: its first
     * {@link #length(int)} bytes. A variable array's row is its real steps, each block of steps
     * (one per index of the axes before the variable one) without the padding after it.
     */
    @Override
    public byte[] bytes(int i) {
      byte[] out = rowBytes[i];
      Column c = columns.get(i);
      if (!c.variable()) {
        arrays[i].get(offsets[i] + row * out.length, out, 0, out.length);
        return out;
      }
      int len = lengths[i][row];
      int steps = batchSteps[i];
      if (len < 0 || len > steps) {
        throw new IllegalArgumentException("array '" + c.name() + "', row " + row + " of the batch: length " + len
            + " outside the batch's " + steps + " steps");
      }
      int outer = c.outer();
      int block = c.stepBytes() / outer;
      int n = len * c.stepBytes();
      if (out.length < n) {
        out = rowBytes[i] = new byte[Math.max(n, out.length * 2)];
      }
      int at = offsets[i] + row * steps * c.stepBytes();
      for (int o = 0; o < outer; o++) {
        arrays[i].get(at + o * steps * block, out, o * len * block, len * block);
      }
      rowLength[i] = n;
      longest[i] = Math.max(longest[i], len);
      return out;
    }

    /** The bytes of the row {@link #bytes(int)} returned last for column {@code i}. */
    @Override
    public int length(int i) {
      return rowLength[i];
    }

    @Override
    public int fixedLength(int i) {
      return rowBytes[i].length;
    }

    @Override
    public void copyTo(int i, byte[] out, int at) {
      int n = rowBytes[i].length;
      arrays[i].get(offsets[i] + row * n, out, at, n);
    }
  }

  /** Settings of a {@link ShardWriter}. */
  public static final class Builder {
    private int samplesPerFile = 10_000;
    private Compression compression = Compression.NONE;
    private @Nullable Configuration conf;

    private Builder() {}

    /** Samples per Parquet file, {@code >= 1}; default 10 000. Each file is read whole into the cache. */
    public Builder samplesPerFile(int samples) {
      this.samplesPerFile = Check.atLeast("samplesPerFile", samples, 1);
      return this;
    }

    /** The pages' codec; default {@link Compression#NONE}. */
    public Builder compression(Compression compression) {
      this.compression = Objects.requireNonNull(compression, "compression");
      return this;
    }

    /** The Hadoop configuration of the file system (credentials, endpoints); default a new one. */
    public Builder configuration(Configuration conf) {
      this.conf = Objects.requireNonNull(conf, "conf");
      return this;
    }

    /** The writer. */
    public ShardWriter build() {
      return new ShardWriter(samplesPerFile, compression, conf);
    }
  }

  // Serialized as its settings: Hadoop's Configuration is not Serializable but writes itself.
  private Object writeReplace() {
    byte[] c = null;
    Configuration g = given;
    if (g != null) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        g.write(out);
      } catch (IOException e) {
        throw IoFailure.of("serialize", "the writer's Hadoop configuration", e);
      }
      c = bytes.toByteArray();
    }
    return new SerialForm(samplesPerFile, compression, c);
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("a ShardWriter is read from its serial form");
  }

  /** The settings of a serialized writer; its configuration in Hadoop's own form, or none for the default. */
  private record SerialForm(int samplesPerFile, Compression compression, byte @Nullable [] conf) implements Serializable {
    private static final long serialVersionUID = 1L;

    private Object readResolve() throws InvalidObjectException {
      byte[] bytes = conf;
      Configuration c = null;
      if (bytes != null) {
        c = new Configuration(false);
        try {
          c.readFields(new DataInputStream(new ByteArrayInputStream(bytes)));
        } catch (IOException e) {
          InvalidObjectException bad = new InvalidObjectException("a ShardWriter's Hadoop configuration: " + e.getMessage());
          bad.initCause(e);
          throw bad;
        }
      }
      return new ShardWriter(samplesPerFile, compression, c);
    }
  }
}
