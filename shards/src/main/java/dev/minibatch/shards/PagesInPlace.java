package dev.minibatch.shards;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A shard file served from its own bytes. In a file as {@link ShardWriter} writes it (required,
 * unrepeated columns, plain encoding, no dictionary, uncompressed pages) a page's values are the
 * samples' bytes back to back after its header: a fixed-size column's row {@code r} is at the
 * page's start plus {@code (r - first row of the page) * rowBytes}, and a binary column's value (a
 * variable axis's steps, an encoded image) is a little-endian length then the bytes. So decoding
 * reads only the page headers (and a binary column's lengths), page by page, and keeps where each page or row starts; the batches copy the
 * samples straight from the file's bytes. Every header is checked against the footer: sizes within
 * the column chunk, values of the column's size, as many as the row group's rows.
 */
final class PagesInPlace {
  private PagesInPlace() {}

  /**
   * Per column, whether every chunk of it in {@code blocks} can be served in place: values as the
   * batch holds them (a scalar whose stored type is wider, an int8 as INT32, cannot), plain,
   * uncompressed, without levels.
   */
  static boolean[] served(List<BlockMetaData> blocks, ColumnDescriptor[] descriptors, List<Column> columns) {
    boolean[] served = new boolean[descriptors.length];
    for (int i = 0; i < descriptors.length; i++) {
      ColumnDescriptor d = descriptors[i];
      Column c = columns.get(i);
      served[i] = d.getMaxDefinitionLevel() == 0 && d.getMaxRepetitionLevel() == 0;
      for (BlockMetaData block : blocks) {
        boolean values = c.binary() ? d.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY
            : ShardFile.plain(block, d, c.rowBytes());
        ColumnChunkMetaData chunk = chunk(block, d);
        if (!values || chunk == null || chunk.getCodec() != CompressionCodecName.UNCOMPRESSED || !plainOnly(chunk)) {
          served[i] = false;
        }
      }
    }
    return served;
  }

  private static boolean plainOnly(ColumnChunkMetaData chunk) {
    EncodingStats stats = chunk.getEncodingStats();
    return stats != null && !chunk.hasDictionaryPage() && !stats.hasDictionaryPages()
        && stats.getDataEncodings().equals(Set.of(Encoding.PLAIN));
  }

  private static ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor d) {
    ColumnPath path = ColumnPath.get(d.getPath());
    for (ColumnChunkMetaData m : block.getColumns()) {
      if (m.getPath().equals(path)) {
        return m;
      }
    }
    return null;
  }

  /**
   * The columns of {@code file} that are {@link #served} in place, from its bytes; the others are left
   * null.
   *
   * @throws FileFormatException naming the rows, column and page of a header that does not fit
   */
  static ShardFile.Decoded decode(ByteBuffer file, List<BlockMetaData> blocks, ColumnDescriptor[] descriptors,
      List<Column> columns, boolean[] served, ShardIndex.Entry entry, String where) {
    ByteBuffer le = file.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int n = descriptors.length;
    ByteBuffer[] data = new ByteBuffer[n];
    int[][] pageRows = new int[n][];
    int[][] pageAt = new int[n][];
    int[][] rowAt = new int[n][];
    int[][] rowBytes = new int[n][];
    for (int i = 0; i < n; i++) {
      if (!served[i]) {
        continue;
      }
      data[i] = file;
      Column c = columns.get(i);
      Pages pages = c.binary() ? null : new Pages();
      if (c.binary()) {
        rowAt[i] = new int[entry.samples()];
        rowBytes[i] = new int[entry.samples()];
      }
      long row = 0;
      for (BlockMetaData block : blocks) {
        ColumnChunkMetaData chunk = java.util.Objects.requireNonNull(chunk(block, descriptors[i]));
        new Chunk(le, chunk, c, where, entry.first(), row, block.getRowCount(), pages, rowAt[i], rowBytes[i]).walk();
        row += block.getRowCount();
      }
      if (pages != null) {
        pageRows[i] = Arrays.copyOf(pages.rows, pages.count);
        pageAt[i] = Arrays.copyOf(pages.at, pages.count);
      }
    }
    return new ShardFile.Decoded(true, data, pageRows, pageAt, rowAt, rowBytes);
  }

  /** A fixed-size column's pages, growing: each one's first row and where its values start. */
  private static final class Pages {
    int[] rows = new int[16];
    int[] at = new int[16];
    int count;

    void add(int row, int offset) {
      if (count == rows.length) {
        rows = Arrays.copyOf(rows, 2 * count);
        at = Arrays.copyOf(at, 2 * count);
      }
      rows[count] = row;
      at[count++] = offset;
    }
  }

  /** One column chunk's pages, walked from its first header to its end. */
  private static final class Chunk {
    private final ByteBuffer file;
    private final Column column;
    private final String where;
    private final long firstSample;
    private final long groupRow;
    private final long groupRows;
    private final Pages pages;
    private final int[] rowAt;
    private final int[] rowBytes;
    private final long start;
    private final long end;

    Chunk(ByteBuffer file, ColumnChunkMetaData chunk, Column column, String where, long firstSample, long groupRow,
        long groupRows, Pages pages, int[] rowAt, int[] rowBytes) {
      this.file = file;
      this.column = column;
      this.where = where;
      this.firstSample = firstSample;
      this.groupRow = groupRow;
      this.groupRows = groupRows;
      this.pages = pages;
      this.rowAt = rowAt;
      this.rowBytes = rowBytes;
      this.start = chunk.getStartingPos();
      this.end = start + chunk.getTotalSize();
    }

    /** The rows {@code [from, from + n)} of the file, as the set and the file count them. */
    private String rows(long from, long n) {
      long last = from + Math.max(n, 1) - 1;
      return "rows " + (firstSample + from) + " to " + (firstSample + last) + " of the shard set (" + from + " to " + last
          + " of the file), column '" + column.name() + "'";
    }

    private FileFormatException failure(String message) {
      return new FileFormatException(where, message);
    }

    void walk() {
      if (start < 0 || end > file.capacity() || start > end) {
        throw failure(rows(groupRow, groupRows) + ": the footer places the column chunk at bytes " + start + " to " + end
            + ", outside the file's " + file.capacity());
      }
      Cursor in = new Cursor(file, (int) start, (int) end);
      long row = groupRow;
      int page = 0;
      while (in.at < end) {
        int at = in.at;
        PageHeader header;
        try {
          header = Util.readPageHeader(in);
        } catch (IOException | RuntimeException e) {
          throw failure(rows(row, groupRow + groupRows - row) + ": page " + page + " at offset " + at + " has no readable"
              + " header (" + e.getMessage() + ")");
        }
        int size = header.getCompressed_page_size();
        if (size < 0 || size > end - in.at || size != header.getUncompressed_page_size()) {
          throw failure(rows(row, groupRow + groupRows - row) + ": page " + page + " at offset " + at + " says it holds "
              + size + " bytes (" + header.getUncompressed_page_size() + " uncompressed), " + (end - in.at)
              + " are left in the column chunk");
        }
        int dataAt = in.at;
        in.at += size;
        if (header.getType() == PageType.DATA_PAGE || header.getType() == PageType.DATA_PAGE_V2) {
          row = page(header, dataAt, size, row, page, at);
        } else if (header.getType() != PageType.INDEX_PAGE) {
          throw failure(rows(row, groupRow + groupRows - row) + ": page " + page + " at offset " + at + " is a "
              + header.getType() + " page, which the column chunk's metadata does not list");
        }
        page++;
      }
      if (row != groupRow + groupRows) {
        throw failure("column '" + column.name() + "' holds " + (row - groupRow) + " values in the row group of rows "
            + groupRow + " to " + (groupRow + groupRows - 1) + ", expected " + groupRows);
      }
    }

    /** Records one data page's rows; returns the row after them. */
    private long page(PageHeader header, int dataAt, int size, long row, int page, int at) {
      int values;
      org.apache.parquet.format.Encoding encoding;
      if (header.getType() == PageType.DATA_PAGE) {
        values = header.getData_page_header().getNum_values();
        encoding = header.getData_page_header().getEncoding();
      } else {
        var v2 = header.getData_page_header_v2();
        values = v2.getNum_values();
        encoding = v2.getEncoding();
        int levels = v2.getRepetition_levels_byte_length() + v2.getDefinition_levels_byte_length();
        if (v2.isIs_compressed() && levels != size || levels < 0 || levels > size) {
          throw failure(rows(row, values) + ": page " + page + " at offset " + at + " is compressed, or its levels"
              + " take " + levels + " of its " + size + " bytes");
        }
        dataAt += levels;
        size -= levels;
      }
      if (encoding != org.apache.parquet.format.Encoding.PLAIN || values < 0 || row + values > groupRow + groupRows) {
        throw failure(rows(row, Math.max(0, values)) + ": page " + page + " at offset " + at + " holds " + values
            + " values in " + encoding + ", expected plain values of at most the row group's "
            + (groupRow + groupRows - row) + " rows left");
      }
      if (pages != null) {
        long n = (long) values * column.rowBytes();
        if (size < n) {
          throw failure("column '" + column.name() + "': a page of " + values + " values holds " + size + " bytes,"
              + " expected " + n + " (" + column.rowBytes() + " per sample)");
        }
        pages.add((int) row, dataAt);
      } else {
        steps(dataAt, size, row, values);
      }
      return row + values;
    }

    /**
     * A binary column's values: each a little-endian length, then that many bytes, a whole number of
     * steps (of a variable axis; any number for an encoded image).
     */
    private void steps(int dataAt, int size, long row, int values) {
      int p = dataAt;
      int pageEnd = dataAt + size;
      int step = column.valueStep();
      for (int v = 0; v < values; v++) {
        long r = row + v;
        if (pageEnd - p < 4) {
          throw failure("row " + r + " (of the file), column '" + column.name() + "': the value is cut short by the end"
              + " of its page");
        }
        int n = file.getInt(p);
        if (n < 0 || n > pageEnd - p - 4) {
          throw failure("row " + r + " (of the file), column '" + column.name() + "': the value says it holds " + n
              + " bytes, " + (pageEnd - p - 4) + " are left in its page");
        }
        if (n % step != 0) {
          throw failure("row " + r + " (of the file), column '" + column.name() + "': " + n + " bytes, expected a multiple"
              + " of " + step + " (whole steps of " + column.shape() + " " + column.dtype() + ")");
        }
        rowAt[(int) r] = p + 4;
        rowBytes[(int) r] = n;
        p += 4 + n;
      }
    }
  }

  /** The page headers of a column chunk, read where they lie in the file. */
  private static final class Cursor extends InputStream {
    private final ByteBuffer file;
    private final int end;
    int at;

    Cursor(ByteBuffer file, int at, int end) {
      this.file = file;
      this.at = at;
      this.end = end;
    }

    @Override
    public int read() {
      return at < end ? file.get(at++) & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      int n = Math.min(len, end - at);
      if (n <= 0) {
        return -1;
      }
      file.get(at, b, off, n);
      at += n;
      return n;
    }
  }
}
