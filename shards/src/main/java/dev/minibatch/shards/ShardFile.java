package dev.minibatch.shards;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.jspecify.annotations.Nullable;

/**
 * One shard file decoded: where each column's samples lie, ready to be copied into batches. A file
 * as {@link ShardWriter} writes it (required columns, plain encoding, no dictionary, uncompressed
 * pages) is served in place: its pages are found by their headers and a sample is read from the
 * file's own bytes, with no copy before the batch's ({@link PagesInPlace}). Any other Parquet file with
 * the index's columns as fixed-size or variable binary of the right length (one Spark wrote, or
 * compressed pages, say) decodes through Parquet's reader into one array per column (only the columns
 * that cannot be served in place, when some can: a uint8 scalar stored as INT32, say): page by page
 * for plain fixed-size values, value by value otherwise. A binary column (each sample's real steps
 * of a variable axis, or an encoded image) keeps where each row starts and how many bytes it holds.
 */
final class ShardFile {
  private ShardFile() {}

  /**
   * A decoded file: per column the bytes its rows lie in (the file's own bytes when served in place,
   * else an array decoded for it) and where each row starts there. The buffers are read by absolute
   * index only, so threads share them.
   *
   * <p>Counted references: the cache holds one while it keeps the file, and each batch write one
   * while it copies from it ({@link #retain()}, {@link #release()}). When the last is released, a
   * file served in place gives its bytes back to be read into again ({@link #owning}); so a dropped
   * file stays whole for a batch still copying from it, and its buffer is reused only after.
   */
  static final class Decoded {
    private final java.util.concurrent.atomic.AtomicInteger refs = new java.util.concurrent.atomic.AtomicInteger(1);
    private @Nullable Runnable free;
    private final boolean inPlace;
    private final ByteBuffer[] data;
    // Per fixed column: the first row of each page and where its values start (one "page" of row 0 at
    // 0 for a decoded array); null for a binary column.
    private final int[] @Nullable [] pageRows;
    private final int[] @Nullable [] pageAt;
    // Per fixed column of several pages: the page that holds row {@code k << pageShift[c]}. Each page
    // but a row group's last holds at least {@code 1 << pageShift[c]} rows, so from there the page of
    // any row is at most a step or two on: a row's place costs no search.
    private final int[] @Nullable [] pageIndex;
    private final int[] pageShift;
    // Per binary column (a variable axis, encoded images): where each row's bytes start, and how many
    // there are; null for a fixed one.
    private final int[] @Nullable [] rowAt;
    private final int[] @Nullable [] rowBytes;

    Decoded(boolean inPlace, ByteBuffer[] data, int[] @Nullable [] pageRows, int[] @Nullable [] pageAt,
        int[] @Nullable [] rowAt, int[] @Nullable [] rowBytes) {
      this.inPlace = inPlace;
      this.data = data;
      this.pageRows = pageRows;
      this.pageAt = pageAt;
      this.rowAt = rowAt;
      this.rowBytes = rowBytes;
      this.pageIndex = new int[data.length][];
      this.pageShift = new int[data.length];
      for (int c = 0; c < data.length; c++) {
        int[] rows = pageRows[c];
        if (rows != null && rows.length > 1) {
          index(c, rows);
        }
      }
    }

    /** Fills {@link #pageIndex} of column {@code c}, whose pages start at {@code rows}. */
    private void index(int c, int[] rows) {
      int least = Integer.MAX_VALUE;
      for (int p = 1; p < rows.length; p++) {
        least = Math.min(least, rows[p] - rows[p - 1]);
      }
      int shift = 31 - Integer.numberOfLeadingZeros(Math.max(1, least));
      int last = rows[rows.length - 1];
      int[] index = new int[(last >>> shift) + 2];
      int p = 0;
      for (int k = 0; k < index.length; k++) {
        long row = (long) k << shift;
        while (p + 1 < rows.length && rows[p + 1] <= row) {
          p++;
        }
        index[k] = p;
      }
      pageIndex[c] = index;
      pageShift[c] = shift;
    }

    /** Whether the rows are read from the file's own bytes (else from arrays decoded for them). */
    boolean inPlace() {
      return inPlace;
    }

    /** Sets what the last {@link #release()} does (gives the file's bytes back); before anyone else sees this. */
    Decoded owning(Runnable free) {
      this.free = free;
      return this;
    }

    /** One more reference, unless the last was released already (the bytes may be reused): then false. */
    boolean retain() {
      int r;
      do {
        r = refs.get();
        if (r <= 0) {
          return false;
        }
      } while (!refs.compareAndSet(r, r + 1));
      return true;
    }

    /** Drops a reference; the last one frees the bytes. */
    void release() {
      int r = refs.decrementAndGet();
      if (r == 0 && free != null) {
        free.run();
      } else if (r < 0) {
        throw new IllegalStateException("a decoded shard file released more often than retained");
      }
    }

    /** The bytes column {@code c}'s rows lie in. */
    ByteBuffer data(int c) {
      return data[c];
    }

    /** Where row {@code row} of column {@code c} starts in {@link #data(int) data(c)}; {@code size} the fixed row's bytes. */
    int at(int c, int row, int size) {
      int[] starts = rowAt[c];
      if (starts != null) {
        return starts[row];
      }
      int[] rows = java.util.Objects.requireNonNull(pageRows[c]);
      int[] at = java.util.Objects.requireNonNull(pageAt[c]);
      int[] index = pageIndex[c];
      int p = 0;
      if (index != null) {
        // Rows past the last page's first share the index's last entry.
        p = index[Math.min(row >>> pageShift[c], index.length - 1)];
        while (p + 1 < rows.length && rows[p + 1] <= row) {
          p++;
        }
      }
      return at[p] + (row - rows[p]) * size;
    }

    /** The steps of row {@code row} of variable column {@code c}. */
    int steps(int c, int row, int stepBytes) {
      return bytes(c, row) / stepBytes;
    }

    /** The bytes of row {@code row} of binary column {@code c} (a variable axis's steps, an encoded image). */
    int bytes(int c, int row) {
      return java.util.Objects.requireNonNull(rowBytes[c])[row];
    }
  }

  /**
   * The columns of {@code file}, the whole bytes of {@code entry}, its checksum checked here.
   *
   * @param where the file's location, for messages
   * @throws FileFormatException if the bytes do not match the index's checksum, or are not a
   *     Parquet file with the index's columns and sample count; the message names the file, and
   *     for a failure inside the data the rows it was decoding
   */
  static Decoded decode(byte[] file, ShardIndex.Entry entry, List<Column> columns, String where) {
    return decode(ByteBuffer.wrap(file), entry, columns, where, false);
  }

  /**
   * As {@link #decode(byte[], ShardIndex.Entry, List, String)}, of the bytes between {@code file}'s
   * position and limit; with {@code checked}, the bytes were checked against the index's checksum
   * already (as they were read, or as they arrived in the disk cache) or are trusted (a copy there),
   * and are not summed again. Served in place, the decoded file reads {@code file}'s bytes: they must
   * not change while it is used.
   */
  static Decoded decode(ByteBuffer file, ShardIndex.Entry entry, List<Column> columns, String where, boolean checked) {
    ByteBuffer bytes = file.slice();
    if (!checked) {
      int crc = crc32c(bytes);
      if (crc != entry.crc32c()) {
        throw corrupt(bytes, entry, columns, where, crc);
      }
    }
    // The file's checksum covers every page: the pages' own checksums are checked only to name the
    // rows of a file that fails it (a second pass over every byte otherwise).
    return columns(bytes, entry, columns, where, false);
  }

  /**
   * The CRC-32C of the bytes between {@code b}'s position and limit (its position unchanged). A direct
   * buffer (a mapped file) is summed through a heap piece of {@link ShardStore#PIECE} bytes, copied
   * while it is in the processor's cache: the JVM's checksum routine reading mapped memory itself
   * would crash the JVM if the file were cut short under the mapping (a copy there is an {@link
   * InternalError} instead, which the caller can name).
   */
  static int crc32c(ByteBuffer b) {
    CRC32C crc = new CRC32C();
    if (!b.isDirect()) {
      crc.update(b.duplicate());
      return (int) crc.getValue();
    }
    byte[] piece = new byte[Math.min(ShardStore.PIECE, b.remaining())];
    for (int at = b.position(); at < b.limit(); at += piece.length) {
      int n = Math.min(piece.length, b.limit() - at);
      b.get(at, piece, 0, n);
      crc.update(piece, 0, n);
    }
    return (int) crc.getValue();
  }

  /**
   * The failure of a file whose CRC-32C is {@code crc}, not the index's: decoded once more with
   * every page's own checksum checked, so that a damaged page is named by its rows and column.
   */
  static FileFormatException corrupt(ByteBuffer file, ShardIndex.Entry entry, List<Column> columns, String where,
      int crc) {
    String sums = "its CRC-32C is " + String.format("%08x", crc) + ", the index says " + String.format("%08x",
        entry.crc32c());
    try {
      columns(file.slice(), entry, columns, where, true);
    } catch (FileFormatException e) {
      String detail = e.getMessage().startsWith(where + ": ") ? e.getMessage().substring(where.length() + 2) : e.getMessage();
      return new FileFormatException(where, sums + ": the file is corrupt; " + detail, e);
    }
    return new FileFormatException(where, sums + ": the file was changed or corrupted after the index was written");
  }

  /**
   * The reader's options, made once: each {@code ParquetReadOptions.builder()} loads a new Hadoop
   * configuration (its XML resources parsed anew), which cost more than serving a file in place.
   */
  private static final class Options {
    static final ParquetReadOptions TRUSTED = ParquetReadOptions.builder().usePageChecksumVerification(false).build();
    static final ParquetReadOptions CHECKED = ParquetReadOptions.builder().usePageChecksumVerification(true).build();
  }

  /**
   * The columns of {@code file}: in place those whose every column chunk allows it ({@link
   * PagesInPlace}), the others through Parquet's reader; with {@code checkPages} (a file that failed
   * its checksum), all through the reader, which checks each page's own checksum.
   */
  private static Decoded columns(ByteBuffer file, ShardIndex.Entry entry, List<Column> columns, String where,
      boolean checkPages) {
    ParquetReadOptions options = checkPages ? Options.CHECKED : Options.TRUSTED;
    long row = 0;
    long rowsInGroup = 0;
    try (ParquetFileReader reader = ParquetFileReader.open(new BytesInputFile(file), options)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      String version = reader.getFooter().getFileMetaData().getKeyValueMetaData().get(ShardColumns.VERSION_KEY);
      if (version != null && !ShardColumns.READABLE.contains(version)) {
        throw new FileFormatException(where, "shard format version " + version + " (" + ShardColumns.VERSION_KEY
            + "), written by a newer minibatch; this one reads versions " + new java.util.TreeSet<>(ShardColumns.READABLE));
      }
      long count = reader.getRecordCount();
      if (count != entry.samples()) {
        throw new FileFormatException(where, "holds " + count + " rows, the index says " + entry.samples());
      }
      ColumnDescriptor[] descriptors = new ColumnDescriptor[columns.size()];
      for (int i = 0; i < descriptors.length; i++) {
        descriptors[i] = descriptor(schema, columns.get(i), where);
      }
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      boolean[] served = checkPages ? new boolean[descriptors.length] : PagesInPlace.served(blocks, descriptors, columns);
      Decoded placed = null;
      List<Type> rest = new java.util.ArrayList<>();
      for (int i = 0; i < descriptors.length; i++) {
        if (served[i]) {
          placed = placed != null ? placed : PagesInPlace.decode(file, blocks, descriptors, columns, served, entry, where);
        } else {
          rest.add(schema.getType(columns.get(i).name()));
        }
      }
      if (rest.isEmpty() && placed != null) {
        return placed;
      }
      if (placed != null) {
        // Only the columns not served in place are read through the reader (a uint8 scalar, say).
        reader.setRequestedSchema(new MessageType(schema.getName(), rest));
      }
      byte[][] out = new byte[columns.size()][];
      int[] @Nullable [] ends = new int[columns.size()][];
      for (int i = 0; i < descriptors.length; i++) {
        Column c = columns.get(i);
        if (served[i]) {
          continue;
        }
        if (c.binary()) {
          ends[i] = new int[entry.samples()];
          out[i] = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(16, chunkBytes(reader, descriptors[i])))];
        } else {
          out[i] = new byte[Math.multiplyExact(entry.samples(), c.rowBytes())];
        }
      }
      int block = 0;
      PageReadStore group;
      while (block < blocks.size()) {
        // Known before the read, so a page that fails its checksum is named by its rows.
        rowsInGroup = blocks.get(block).getRowCount();
        group = reader.readNextRowGroup();
        if (group == null) {
          break;
        }
        ColumnReadStoreImpl values = null;
        for (int i = 0; i < descriptors.length; i++) {
          if (served[i]) {
            continue;
          }
          ColumnDescriptor d = descriptors[i];
          int rowBytes = columns.get(i).rowBytes();
          if (columns.get(i).binary()) {
            if (values == null) {
              values = new ColumnReadStoreImpl(group, new GroupRecordConverter(schema).getRootConverter(), schema,
                  reader.getFooter().getFileMetaData().getCreatedBy());
            }
            out[i] = copySteps(values.getColumnReader(d), d, out[i], java.util.Objects.requireNonNull(ends[i]), (int) row,
                (int) rowsInGroup, columns.get(i), where, row);
          } else if (plain(blocks.get(block), d, rowBytes)) {
            copyPages(group.getPageReader(d), out[i], (int) row, (int) rowsInGroup, rowBytes, columns.get(i), where, row);
          } else {
            if (values == null) {
              values = new ColumnReadStoreImpl(group, new GroupRecordConverter(schema).getRootConverter(), schema,
                  reader.getFooter().getFileMetaData().getCreatedBy());
            }
            copyValues(values.getColumnReader(d), d, out[i], (int) row, (int) rowsInGroup, rowBytes, columns.get(i), where,
                row);
          }
        }
        row += rowsInGroup;
        block++;
      }
      return decoded(out, ends, placed, served);
    } catch (FileFormatException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      String rows = rowsInGroup == 0 ? "" : " (rows " + (entry.first() + row) + " to " + (entry.first() + row
          + rowsInGroup - 1) + " of the shard set)";
      throw new FileFormatException(where, "not a readable Parquet shard file" + rows + ": " + e, e);
    }
  }

  /**
   * Columns decoded into arrays (a fixed one as one page from row 0, a binary one by its rows'
   * ends), and those {@code served} in place from {@code placed}.
   */
  private static Decoded decoded(byte[][] out, int[] @Nullable [] ends, @Nullable Decoded placed, boolean[] served) {
    int n = out.length;
    ByteBuffer[] data = new ByteBuffer[n];
    int[][] pageRows = new int[n][];
    int[][] pageAt = new int[n][];
    int[][] rowAt = new int[n][];
    int[][] rowBytes = new int[n][];
    for (int c = 0; c < n; c++) {
      if (served[c]) {
        Decoded p = java.util.Objects.requireNonNull(placed);
        data[c] = p.data[c];
        pageRows[c] = p.pageRows[c];
        pageAt[c] = p.pageAt[c];
        rowAt[c] = p.rowAt[c];
        rowBytes[c] = p.rowBytes[c];
        continue;
      }
      data[c] = ByteBuffer.wrap(out[c]);
      int[] e = ends[c];
      if (e == null) {
        pageRows[c] = new int[] {0};
        pageAt[c] = new int[] {0};
      } else {
        rowAt[c] = new int[e.length];
        rowBytes[c] = new int[e.length];
        for (int r = 0; r < e.length; r++) {
          rowAt[c][r] = r == 0 ? 0 : e[r - 1];
          rowBytes[c][r] = e[r] - rowAt[c][r];
        }
      }
    }
    return new Decoded(placed != null, data, pageRows, pageAt, rowAt, rowBytes);
  }

  /** The uncompressed bytes of column {@code d} in the whole file: a first guess of its decoded size. */
  private static long chunkBytes(ParquetFileReader reader, ColumnDescriptor d) {
    ColumnPath path = ColumnPath.get(d.getPath());
    long n = 0;
    for (BlockMetaData b : reader.getFooter().getBlocks()) {
      for (ColumnChunkMetaData m : b.getColumns()) {
        if (m.getPath().equals(path)) {
          n += m.getTotalUncompressedSize();
        }
      }
    }
    return n;
  }

  /** The column of {@code schema} that holds {@code c}, checked. */
  private static ColumnDescriptor descriptor(MessageType schema, Column c, String where) {
    if (!schema.containsField(c.name())) {
      throw new FileFormatException(where, "has no column '" + c.name() + "' (the index lists it); its columns: "
          + schema.getFields().stream().map(Type::getName).toList());
    }
    Type t = schema.getType(c.name());
    if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
      throw new FileFormatException(where, "column '" + c.name() + "' is " + t + "; expected a binary column of "
          + c.rowBytes() + " bytes per sample");
    }
    PrimitiveType p = t.asPrimitiveType();
    PrimitiveTypeName typed = c.physical().getPrimitiveTypeName();
    if (typed != PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && typed != PrimitiveTypeName.BINARY
        && p.getPrimitiveTypeName() == typed) {
      return schema.getColumnDescription(new String[] {c.name()}); // a scalar in its own type (format 2)
    }
    if (c.binary()) {
      if (p.getPrimitiveTypeName() != PrimitiveTypeName.BINARY) {
        throw new FileFormatException(where, "column '" + c.name() + "' is " + p + "; expected binary (" + (c.encoded()
            ? "an encoded image per sample, " + c.field().encoding() + ")" : c.shape() + " " + c.dtype()
            + " per sample: " + c.stepBytes() + " bytes per step, the steps of the sample)"));
      }
      return schema.getColumnDescription(new String[] {c.name()});
    }
    boolean fixed = p.getPrimitiveTypeName() == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
    if (fixed ? p.getTypeLength() != c.rowBytes() : p.getPrimitiveTypeName() != PrimitiveTypeName.BINARY) {
      throw new FileFormatException(where, "column '" + c.name() + "' is " + p + "; expected "
          + (typed == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY ? "" : typed.name().toLowerCase(java.util.Locale.ROOT) + ", ")
          + "fixed_len_byte_array(" + c.rowBytes() + ") or binary (" + c.shape() + " " + c.dtype() + " per sample)");
    }
    return schema.getColumnDescription(new String[] {c.name()});
  }

  /**
   * Whether a column chunk holds plain fixed-size values without levels or a dictionary, which
   * decode with one copy per page (what {@link ShardWriter} writes).
   */
  static boolean plain(BlockMetaData block, ColumnDescriptor d, int rowBytes) {
    if (d.getMaxDefinitionLevel() != 0 || d.getMaxRepetitionLevel() != 0 || !sameBytes(d.getPrimitiveType(), rowBytes)) {
      return false;
    }
    ColumnPath path = ColumnPath.get(d.getPath());
    for (ColumnChunkMetaData m : block.getColumns()) {
      if (m.getPath().equals(path)) {
        EncodingStats stats = m.getEncodingStats();
        return stats != null && !m.hasDictionaryPage() && !stats.hasDictionaryPages()
            && stats.getDataEncodings().equals(Set.of(Encoding.PLAIN));
      }
    }
    return false;
  }

  /**
   * Whether the plain encoding of {@code p} is a sample's {@code rowBytes} little-endian bytes as the
   * batch holds them: a fixed-size array, or a 4- or 8-byte scalar in a type of that width.
   */
  private static boolean sameBytes(PrimitiveType p, int rowBytes) {
    return switch (p.getPrimitiveTypeName()) {
      case FIXED_LEN_BYTE_ARRAY -> true;
      case INT32, FLOAT -> rowBytes == 4;
      case INT64, DOUBLE -> rowBytes == 8;
      default -> false;
    };
  }

  private static void copyPages(PageReader pages, byte[] out, int row, int rows, int rowBytes, Column c, String where,
      long firstRow) {
    int at = row * rowBytes;
    int end = (row + rows) * rowBytes;
    DataPage page;
    while ((page = pages.readPage()) != null) {
      BytesInput values = page instanceof DataPageV1 v1 ? v1.getBytes() : ((DataPageV2) page).getData();
      int n = page.getValueCount() * rowBytes;
      if (values.size() < n || at + n > end) {
        throw new FileFormatException(where, "column '" + c.name() + "': a page of " + page.getValueCount() + " values"
            + " holds " + values.size() + " bytes, expected " + n + " (" + rowBytes + " per sample)");
      }
      try (InputStream in = values.toInputStream()) {
        // Straight from the page into the column: one copy.
        if (in.readNBytes(out, at, n) != n) {
          throw new FileFormatException(where, "column '" + c.name() + "': a page ends before its " + n + " bytes");
        }
      } catch (IOException e) {
        throw new FileFormatException(where, "column '" + c.name() + "': cannot read a page: " + e.getMessage(), e);
      }
      at += n;
    }
    if (at != end) {
      throw new FileFormatException(where, "column '" + c.name() + "' holds " + (at / rowBytes - row) + " values in the"
          + " row group of rows " + firstRow + " to " + (firstRow + rows - 1) + ", expected " + rows);
    }
  }

  private static void copyValues(ColumnReader values, ColumnDescriptor d, byte[] out, int row, int rows, int rowBytes,
      Column c, String where, long firstRow) {
    int max = d.getMaxDefinitionLevel();
    for (int r = 0; r < rows; r++) {
      if (values.getCurrentDefinitionLevel() < max) {
        throw new FileFormatException(where, "row " + (firstRow + r) + " (of the file), column '" + c.name()
            + "': null; every sample needs a value");
      }
      int at = (row + r) * rowBytes;
      switch (d.getPrimitiveType().getPrimitiveTypeName()) {
        case BOOLEAN -> out[at] = (byte) (values.getBoolean() ? 1 : 0);
        case INT32 -> ScalarBytes.putInt(values.getInteger(), out, at, c, where, firstRow + r);
        case INT64 -> ScalarBytes.putLong(values.getLong(), out, at);
        case FLOAT -> ScalarBytes.putFloat(values.getFloat(), out, at);
        case DOUBLE -> ScalarBytes.putDouble(values.getDouble(), out, at);
        default -> {
          Binary b = values.getBinary();
          if (b.length() != rowBytes) {
            throw new FileFormatException(where, "row " + (firstRow + r) + " (of the file), column '" + c.name() + "': "
                + b.length() + " bytes, expected " + rowBytes + " (" + c.shape() + " " + c.dtype() + ")");
          }
          System.arraycopy(b.getBytesUnsafe(), 0, out, at, rowBytes);
        }
      }
      values.consume();
    }
  }

  /**
   * Appends the values of a variable column's rows {@code [row, row + rows)} to {@code out} (grown
   * when needed) and records where each ends.
   *
   * @return the column's bytes, {@code out} or a larger copy of it
   * @throws FileFormatException for a null, or a value whose length is not a whole number of steps
   */
  private static byte[] copySteps(ColumnReader values, ColumnDescriptor d, byte[] out, int[] ends, int row, int rows,
      Column c, String where, long firstRow) {
    int max = d.getMaxDefinitionLevel();
    int step = c.valueStep();
    int at = row == 0 ? 0 : ends[row - 1];
    for (int r = 0; r < rows; r++) {
      if (values.getCurrentDefinitionLevel() < max) {
        throw new FileFormatException(where, "row " + (firstRow + r) + " (of the file), column '" + c.name()
            + "': null; every sample needs a value");
      }
      Binary b = values.getBinary();
      int n = b.length();
      if (n % step != 0) {
        throw new FileFormatException(where, "row " + (firstRow + r) + " (of the file), column '" + c.name() + "': "
            + n + " bytes, expected a multiple of " + step + " (whole steps of " + c.shape() + " " + c.dtype() + ")");
      }
      if (out.length - at < n) {
        long grown = Math.max((long) at + n, Math.min(Integer.MAX_VALUE - 8L, 2L * out.length));
        if (grown > Integer.MAX_VALUE - 8) {
          throw new FileFormatException(where, "column '" + c.name() + "' holds more than 2 GiB in one file; write"
              + " fewer samples per file");
        }
        out = java.util.Arrays.copyOf(out, (int) grown);
      }
      System.arraycopy(b.getBytesUnsafe(), 0, out, at, n);
      at += n;
      ends[row + r] = at;
      values.consume();
    }
    return out;
  }
}
