package dev.minibatch.shards;

import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.shards.ShardWriter.Row;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.jspecify.annotations.Nullable;

/**
 * A shard file's row groups, written as Parquet pages straight from the rows' bytes: each column's
 * values are appended PLAIN-encoded to one growing array per column (a fixed array's or an image's
 * bytes as they are, a {@code binary} value after its 4-byte length, a scalar as the number Parquet
 * stores), cut into pages of about {@link #PAGE_BYTES} at value boundaries, and handed to Parquet's
 * file writer page by page, which adds the headers, the page checksums and the footer. Parquet's
 * record path (a column writer per column, values copied into its page buffers, new buffers each
 * page) cost about four fifths of the writer's time on image sets (docs/performance.md, "Writing
 * shards against the machine's write"); the files have the shard set's layout (required columns,
 * data page v1, PLAIN, no dictionary), and any Parquet reader reads the same values from them as
 * from the record path's. What differs: pages end by bytes only (Parquet's record path also ended one at 20 000
 * values), row groups are sized on PLAIN bytes before compression, and no size statistics.
 *
 * <p>A row group's pages are written through a {@link WriteBehind}: on a writer's own thread, two
 * sets of buffers take turns, one filled with rows while the other's row group is written (so a
 * row group costs twice its bytes in memory).
 *
 * <p>Every page carries min/max statistics, computed once per page when it is written (see {@link
 * Values#statistics}). Only the methods of Parquet 1.13 are used, the version Spark 3.5 brings to
 * its executors.
 */
final class ColumnChunks {
  /** Parquet's default page size: a page ends at the first value boundary at or past it. */
  static final int PAGE_BYTES = 1 << 20;
  /** Parquet's default row group size: a row group is written once its columns hold this many bytes. */
  static final long ROW_GROUP_BYTES = 128L << 20;

  private java.util.function.@Nullable Supplier<ParquetFileWriter> file;
  private String fileName = "";
  private final MessageType schema;
  private final WriteBehind writes;
  /** The column buffers being filled; the other set's row group may be being written. */
  private Values[] columns;
  private Values[] other;
  /** The write of {@link #other}'s row group, once handed over (0: none). */
  private long otherWrite;
  private final ColumnDescriptor[] descriptors;
  private final CompressionCodecName codec;
  private final CodecFactory codecs;
  private final CompressionCodecFactory.BytesInputCompressor compressor;
  /** A compressed page, copied out of the compressor's buffer; reused from page to page. */
  private final PageBytes compressed = new PageBytes();
  private final int pageBytes;
  private final long rowGroupBytes;
  /** The PLAIN bytes of one row's fixed-size values; a binary value adds its own. */
  private final long fixedRowBytes;
  /** Per column, the current row's binary value and its length, taken once per row (null for fixed columns). */
  private final byte[][] binary;
  private final int[] binaryLength;
  private long rows;
  private long bytes;

  /**
   * The buffers of {@code columns}, compressed with {@code codec} by a codec of {@code conf}'s
   * (pooled until {@link #release}).
   */
  ColumnChunks(List<Column> columns, CompressionCodecName codec, Configuration conf, WriteBehind writes) {
    this(columns, codec, conf, PAGE_BYTES, ROW_GROUP_BYTES, writes);
  }

  /**
   * With other page and row group sizes, writing on the caller's thread: tests cut many pages and
   * row groups from a few rows.
   */
  ColumnChunks(List<Column> columns, CompressionCodecName codec, Configuration conf, int pageBytes,
      long rowGroupBytes) {
    this(columns, codec, conf, pageBytes, rowGroupBytes, WriteBehind.inline());
  }

  private ColumnChunks(List<Column> columns, CompressionCodecName codec, Configuration conf, int pageBytes,
      long rowGroupBytes, WriteBehind writes) {
    this.pageBytes = pageBytes;
    this.rowGroupBytes = rowGroupBytes;
    this.writes = writes;
    this.schema = ShardColumns.parquetSchema(columns);
    this.columns = new Values[columns.size()];
    this.other = new Values[columns.size()];
    this.descriptors = new ColumnDescriptor[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      this.columns[i] = new Values(columns.get(i), pageBytes);
      this.other[i] = new Values(columns.get(i), pageBytes);
      this.descriptors[i] = schema.getColumns().get(i);
    }
    this.codec = codec;
    this.codecs = new CodecFactory(conf, pageBytes);
    this.compressor = codecs.getCompressor(codec);
    long fixed = 0;
    for (Values v : this.columns) {
      fixed += v.fixedBytes();
    }
    this.fixedRowBytes = fixed;
    this.binary = new byte[columns.size()][];
    this.binaryLength = new int[columns.size()];
  }

  /** Returns the codec's pooled buffers: no file is written through these chunks any more. */
  void release() {
    codecs.release();
  }

  /**
   * A Parquet file writer of {@code out} for these columns, not started: no padding to HDFS blocks (a
   * shard file is read whole), Parquet's default truncation of column-index values, statistics left
   * to Parquet's own size limit, page checksums on (they name a damaged page's rows).
   */
  ParquetFileWriter newFile(OutputFile out) throws IOException {
    return new ParquetFileWriter(out, schema, ParquetFileWriter.Mode.CREATE, rowGroupBytes, 0,
        ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH, Integer.MAX_VALUE, true);
  }

  /**
   * Starts the row groups of the file {@code next} gives when a row group is written (on the
   * writes' thread, after the writes given before: one that opens it), a started file named {@code
   * name}: the rows of the file before must have been {@link #flush flushed}. The column buffers
   * stay from file to file, so a segment's files after its first allocate nothing (a new array per
   * file cost its zeroing and first-touch page faults, a large share of the write at image sizes).
   */
  void start(java.util.function.Supplier<ParquetFileWriter> next, String name) {
    if (rows != 0) {
      throw new IllegalStateException("the rows of the file before were not flushed");
    }
    this.file = next;
    this.fileName = name;
  }

  /**
   * Appends one row. A row that would take the row group past {@link #ROW_GROUP_BYTES} starts the
   * next one: the group before is handed to the writes first, so each set of buffers never holds
   * more than a row group (or one row larger than that).
   *
   * @throws java.io.UncheckedIOException naming the file if a write handed over before failed
   */
  void write(Row row) {
    long need = fixedRowBytes;
    for (int i = 0; i < columns.length; i++) {
      if (columns[i].kind == PrimitiveType.PrimitiveTypeName.BINARY) {
        binary[i] = row.bytes(i);
        binaryLength[i] = row.length(i);
        need += 4L + binaryLength[i];
      }
    }
    if (rows > 0 && bytes + need > rowGroupBytes) {
      flush();
    }
    for (int i = 0; i < columns.length; i++) {
      columns[i].append(row, i, binary[i], binaryLength[i]);
    }
    rows++;
    bytes += need;
  }

  /** The largest buffer a column holds now in either set, in bytes: what a row group costs in memory. */
  int largestBuffer() {
    int most = 0;
    for (Values v : columns) {
      most = Math.max(most, v.data.length);
    }
    for (Values v : other) {
      most = Math.max(most, v.data.length);
    }
    return most;
  }

  /**
   * Hands the rows appended since the last row group to the writes as one, if there are any, and
   * goes on in the other buffers once their row group is written.
   *
   * @throws java.io.UncheckedIOException naming the file if a write failed (this one, inline, or one
   *     handed over before)
   */
  void flush() {
    if (rows == 0) {
      return;
    }
    java.util.function.Supplier<ParquetFileWriter> target = java.util.Objects.requireNonNull(this.file, "start(file) first");
    String name = fileName;
    Values[] full = columns;
    long count = rows;
    long written = writes.submit(() -> {
      try {
        writeGroup(target.get(), full, count);
      } catch (IOException e) {
        throw writeFailure(name, e);
      }
    });
    columns = other;
    other = full;
    rows = 0;
    bytes = 0;
    writes.awaitDone(otherWrite);
    otherWrite = written;
  }

  /**
   * The failure to write {@code what}: named by the innermost I/O failure among {@code e}'s causes,
   * what the file system said (Parquet wraps a failed write of the footer, through Thrift's
   * exception, in one whose message is the whole footer).
   */
  static java.io.UncheckedIOException writeFailure(Object what, IOException e) {
    IOException said = e;
    // Through Thrift's own exceptions too: the footer is written by a Thrift protocol. (A bounded
    // walk: a chain of causes may loop.)
    Throwable t = e.getCause();
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof IOException io) {
        said = io;
      }
    }
    java.io.UncheckedIOException named = dev.minibatch.runtime.check.IoFailure.of("write", what, said);
    // The message from the innermost, the whole chain kept as the cause.
    return said == e ? named : new java.io.UncheckedIOException(named.getMessage(), e);
  }

  /** Writes {@code count} rows of {@code columns} as a row group of {@code file}, and clears them. */
  private void writeGroup(ParquetFileWriter file, Values[] columns, long count) throws IOException {
    file.startBlock(count);
    for (int i = 0; i < columns.length; i++) {
      Values v = columns[i];
      v.endLastPage();
      file.startColumn(descriptors[i], count, codec);
      int from = 0;
      int fromValue = 0;
      for (int p = 0; p < v.pages; p++) {
        int to = v.pageEnds[p];
        int toValue = v.pageValues[p];
        BytesInput plain = v.page(from, to, fromValue, toValue);
        int size = Math.toIntExact(plain.size());
        // A compressor's output may be a stream over its reused buffer; the page checksum and the write
        // each read it, so it is materialised once.
        BytesInput stored = plain;
        if (codec != CompressionCodecName.UNCOMPRESSED) {
          compressed.reset();
          compressor.compress(plain).writeAllTo(compressed);
          stored = BytesInput.from(compressed.bytes(), 0, compressed.size());
        }
        // Required columns have no repetition or definition levels: the page holds none, and readers
        // read none for a maximum level of 0 whatever the encoding named (RLE, the one v1 pages use for
        // levels; Parquet's record path names the deprecated BIT_PACKED for an empty stream).
        file.writeDataPage(toValue - fromValue, size, stored, v.statistics(from, to, fromValue, toValue),
            toValue - fromValue, Encoding.RLE, Encoding.RLE, Encoding.PLAIN);
        from = to;
        fromValue = toValue;
      }
      file.endColumn();
      v.clear();
    }
    file.endBlock();
  }

  /**
   * Drops the rows appended since the last row group (a file given up), once the writes are
   * closed; the buffers stay.
   */
  void clear() {
    for (Values v : columns) {
      v.clear();
    }
    for (Values v : other) {
      v.clear();
    }
    otherWrite = 0;
    rows = 0;
    bytes = 0;
    file = null;
  }

  /** A byte stream whose array is read in place: a compressed page, written once and handed to Parquet. */
  private static final class PageBytes extends java.io.ByteArrayOutputStream {
    byte[] bytes() {
      return buf;
    }
  }

  /**
   * The bytes of a long binary min or max value kept (see {@code Values.kept}): one more than
   * Parquet's limit on a min/max pair in page headers and the footer (4 KiB), so a longer value
   * stays over it.
   */
  static final int STATS_KEPT = 4097;

  /** One column's values of the current row group, PLAIN-encoded, and where its pages end. */
  private static final class Values {
    private final Column column;
    private final PrimitiveType type;
    private final PrimitiveType.PrimitiveTypeName kind;
    private final int pageBytes;
    /** The values' bytes; a BOOLEAN's values one byte each, packed to bits when a page is written. */
    private byte[] data = new byte[1 << 16];
    private int size;
    private int values;
    /** Per page: the end of its bytes in {@link #data} and of its values. */
    private int[] pageEnds = new int[16];
    private int[] pageValues = new int[16];
    private int pages;
    private int pageStart;
    private byte[] bits = new byte[0];

    Values(Column column, int pageBytes) {
      this.column = column;
      this.pageBytes = pageBytes;
      this.type = column.physical();
      this.kind = type.getPrimitiveTypeName();
    }

    /** Appends column {@code i}'s value of {@code row} (a binary one: the first {@code length} bytes of {@code b}). */
    void append(Row row, int i, byte @Nullable [] b, int length) {
      switch (kind) {
        case BOOLEAN -> put1(row.bytes(i)[0] != 0 ? (byte) 1 : (byte) 0);
        case INT32 -> putInt(ScalarBytes.getInt(row.bytes(i), column.dtype()));
        case BINARY -> {
          java.util.Objects.requireNonNull(b);
          putInt(length);
          room(length);
          System.arraycopy(b, 0, data, size, length);
          size += length;
        }
        default -> {
          // INT64, FLOAT, DOUBLE and fixed arrays: the row's bytes as they are, copied once.
          int n = row.fixedLength(i);
          room(n);
          row.copyTo(i, data, size);
          size += n;
        }
      }
      values++;
      if (size - pageStart >= pageBytes) {
        endPage();
      }
    }

    /** The PLAIN bytes of one value of a fixed-size column (a BOOLEAN's one byte here), 0 for a binary one. */
    long fixedBytes() {
      return switch (kind) {
        case BOOLEAN -> 1;
        case INT32, FLOAT -> 4;
        case INT64, DOUBLE -> 8;
        case BINARY -> 0;
        default -> column.rowBytes();
      };
    }

    /** The PLAIN bytes of values {@code [fromValue, toValue)} at {@code [from, to)}. */
    BytesInput page(int from, int to, int fromValue, int toValue) {
      if (kind != PrimitiveType.PrimitiveTypeName.BOOLEAN) {
        return BytesInput.from(data, from, to - from);
      }
      // PLAIN booleans are bit-packed, least significant bit first, from the page's first value.
      int n = toValue - fromValue;
      int packed = (n + 7) >>> 3;
      if (bits.length < packed) {
        bits = new byte[packed];
      }
      Arrays.fill(bits, 0, packed, (byte) 0);
      for (int k = 0; k < n; k++) {
        bits[k >>> 3] |= (byte) (data[from + k] << (k & 7));
      }
      return BytesInput.from(bits, 0, packed);
    }

    /**
     * The page's statistics: min, max and no nulls. A scalar's by Parquet's own statistics; an array's
     * or an image's (binary or fixed-length values) as Parquet orders them, unsigned byte by byte, with
     * only the two values copied, which Parquet then leaves out of headers and footer where they exceed
     * its size limit and truncates in the column index. Statistics must not be empty: Parquet marks a
     * page without a minimum as all-null in the column index, and a reader filtering by it would skip
     * the page.
     */
    Statistics<?> statistics(int from, int to, int fromValue, int toValue) {
      if (kind == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
          || kind == PrimitiveType.PrimitiveTypeName.BINARY) {
        return byteStatistics(from, to);
      }
      Statistics<?> s = Statistics.createStats(type);
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(data, from, to - from).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      for (int k = 0; k < toValue - fromValue; k++) {
        switch (kind) {
          case BOOLEAN -> s.updateStats(data[from + k] != 0);
          case INT32 -> s.updateStats(b.getInt());
          case INT64 -> s.updateStats(b.getLong());
          case FLOAT -> s.updateStats(b.getFloat());
          case DOUBLE -> s.updateStats(b.getDouble());
          default -> throw new IllegalStateException(kind.toString());
        }
      }
      return s;
    }

    private Statistics<?> byteStatistics(int from, int to) {
      boolean prefixed = kind == PrimitiveType.PrimitiveTypeName.BINARY;
      int fixed = prefixed ? 0 : column.rowBytes();
      int minAt = -1;
      int minLen = 0;
      int maxAt = -1;
      int maxLen = 0;
      for (int at = from; at < to; ) {
        int len = fixed;
        if (prefixed) {
          len = (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8 | (data[at + 2] & 0xFF) << 16 | (data[at + 3] & 0xFF) << 24;
          at += 4;
        }
        if (minAt < 0 || Arrays.compareUnsigned(data, at, at + len, data, minAt, minAt + minLen) < 0) {
          minAt = at;
          minLen = len;
        }
        if (maxAt < 0 || Arrays.compareUnsigned(data, at, at + len, data, maxAt, maxAt + maxLen) > 0) {
          maxAt = at;
          maxLen = len;
        }
        at += len;
      }
      return Statistics.getBuilderForReading(type).withMin(Arrays.copyOfRange(data, minAt, minAt + kept(minAt, minLen)))
          .withMax(Arrays.copyOfRange(data, maxAt, maxAt + kept(maxAt, maxLen))).withNumNulls(0).build();
    }

    /**
     * The bytes kept in the statistics of the min or max value at {@code at}, {@code length} long:
     * all of them, or for a longer value (an image) its first {@link #STATS_KEPT} when they hold a
     * byte that UTF-8 never uses. Parquet writes a min/max pair into page headers and the footer only
     * when the two together are under 4 KiB, and cuts each to 64 bytes in the column index, as UTF-8
     * if the whole value is valid UTF-8 and as bytes if not: with such a byte among the first, the
     * value is not valid UTF-8 whole or cut, so its first bytes decide every place it is written
     * (Parquet 1.13 only sizes a chunk's column index by the values as given; docs/performance.md,
     * "Writing behind the rows"). Copying an image of 150 KB twice per page cost a tenth of the
     * writer's time.
     */
    private int kept(int at, int length) {
      if (length <= STATS_KEPT) {
        return length;
      }
      for (int i = at; i < at + STATS_KEPT; i++) {
        int b = data[i] & 0xFF;
        if (b >= 0xF5 || b == 0xC0 || b == 0xC1) {
          return STATS_KEPT;
        }
      }
      return length;
    }

    private void endPage() {
      if (pages == pageEnds.length) {
        pageEnds = Arrays.copyOf(pageEnds, pages * 2);
        pageValues = Arrays.copyOf(pageValues, pages * 2);
      }
      pageEnds[pages] = size;
      pageValues[pages] = values;
      pages++;
      pageStart = size;
    }

    /** Ends the last page, if values follow the last page's end: then the pages are complete. */
    void endLastPage() {
      if (values > (pages == 0 ? 0 : pageValues[pages - 1])) {
        endPage();
      }
    }

    void clear() {
      size = 0;
      values = 0;
      pages = 0;
      pageStart = 0;
    }

    private void room(int more) {
      if (data.length - size < more) {
        long want = Math.max((long) data.length * 2, (long) size + more);
        data = Arrays.copyOf(data, (int) Math.min(want, Integer.MAX_VALUE - 8));
        if (data.length - size < more) {
          throw new IllegalArgumentException("column '" + column.name() + "': a row group's values exceed 2 GiB");
        }
      }
    }

    private void put1(byte v) {
      room(1);
      data[size++] = v;
    }

    private void putInt(int v) {
      room(4);
      data[size] = (byte) v;
      data[size + 1] = (byte) (v >>> 8);
      data[size + 2] = (byte) (v >>> 16);
      data[size + 3] = (byte) (v >>> 24);
      size += 4;
    }

  }
}
