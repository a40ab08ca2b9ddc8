package dev.minibatch.shards;

import dev.minibatch.runtime.io.Format.Problems;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.jspecify.annotations.Nullable;

/**
 * Every page of one shard file, checked on its own: its header read, its CRC-32 (which {@link
 * ShardWriter} writes into every page header) against its bytes, then its values decompressed and,
 * for plain values, their sizes against the column's. Each problem names the file and the rows the
 * page holds, so one damaged page does not hide another, and the message says which rows to
 * rewrite. {@link ShardFile#decode} reads the same pages as training does; this walk is for
 * {@code validate}, which must name every damaged page, not stop at the first.
 */
final class ShardPages {
  private final byte[] file;
  private final ParquetMetadata footer;
  private final List<Column> columns;
  private final long firstSample;
  private final String where;
  private final Problems problems;
  private final CodecFactory codecs;
  private int found;

  private ShardPages(byte[] file, ParquetMetadata footer, List<Column> columns, long firstSample, String where,
      Problems problems, CodecFactory codecs) {
    this.codecs = codecs;
    this.file = file;
    this.footer = footer;
    this.columns = columns;
    this.firstSample = firstSample;
    this.where = where;
    this.problems = problems;
  }

  /**
   * Checks every page of every column chunk of {@code file} and reports each bad one to {@code
   * problems}, with the rows it holds counted from {@code firstSample} (the file's first sample in
   * the set).
   *
   * @return how many problems were found
   */
  static int check(byte[] file, ParquetMetadata footer, List<Column> columns, long firstSample, String where,
      Problems problems, org.apache.hadoop.conf.Configuration conf) {
    CodecFactory codecs = new CodecFactory(conf, 0);
    try {
      ShardPages p = new ShardPages(file, footer, columns, firstSample, where, problems, codecs);
      long row = 0;
      for (BlockMetaData block : footer.getBlocks()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          if (problems.isFull()) {
            return p.found;
          }
          p.chunk(chunk, row, block.getRowCount());
        }
        row += block.getRowCount();
      }
      return p.found;
    } finally {
      codecs.release();
    }
  }

  /** The rows {@code [from, from + n)} of the file, as the set and the file count them. */
  private String rows(long from, long n) {
    long last = from + Math.max(n, 1) - 1;
    return "rows " + (firstSample + from) + " to " + (firstSample + last) + " of the shard set (" + from + " to " + last
        + " of the file)";
  }

  private void report(String message) {
    found++;
    problems.report(where, message);
  }

  private void chunk(ColumnChunkMetaData chunk, long groupRow, long groupRows) {
    String name = chunk.getPath().toDotString();
    Column column = columns.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    long start = chunk.getStartingPos();
    long end = start + chunk.getTotalSize();
    if (start < 0 || end > file.length || start > end) {
      report(rows(groupRow, groupRows) + ", column '" + name + "': the footer places the column chunk at bytes " + start
          + " to " + end + ", outside the file's " + file.length);
      return;
    }
    BytesInputDecompressor decompressor = codecs.getDecompressor(chunk.getCodec());
    long row = groupRow;
    int page = 0;
    ByteArrayInputStream in = new ByteArrayInputStream(file, (int) start, (int) (end - start));
    while (in.available() > 0) {
      int at = (int) end - in.available();
      PageHeader header;
      try {
        header = Util.readPageHeader(in);
      } catch (IOException | RuntimeException e) {
        report(rows(row, groupRow + groupRows - row) + ", column '" + name + "': page " + page + " at offset " + at
            + " has no readable header (" + e.getMessage() + "): the file is corrupt");
        return;
      }
      int size = header.getCompressed_page_size();
      if (size < 0 || size > in.available()) {
        report(rows(row, groupRow + groupRows - row) + ", column '" + name + "': page " + page + " at offset " + at
            + " says it holds " + size + " bytes, " + in.available() + " are left in the column chunk: the file is corrupt");
        return;
      }
      int dataAt = (int) end - in.available();
      in.skip(size);
      long values = values(header);
      String what = rows(row, values) + ", column '" + name + "', page " + page + " at offset " + at;
      if (header.isSetCrc()) {
        CRC32 crc = new CRC32();
        crc.update(file, dataAt, size);
        if ((int) crc.getValue() != header.getCrc()) {
          report(what + ": its CRC-32 is " + String.format("%08x", (int) crc.getValue()) + ", its header says "
              + String.format("%08x", header.getCrc()) + ": the page is corrupt");
          row += values;
          page++;
          continue;
        }
      }
      if (header.getType() == PageType.DATA_PAGE || header.getType() == PageType.DATA_PAGE_V2) {
        String bad = decode(header, dataAt, size, column, decompressor, values);
        if (bad != null) {
          report(what + ": " + bad);
        }
        row += values;
      }
      page++;
    }
    if (row != groupRow + groupRows) {
      report(rows(groupRow, groupRows) + ", column '" + name + "': its pages hold " + (row - groupRow) + " values, the"
          + " row group " + groupRows + " rows");
    }
  }

  /** The values of a data page (one per row: shard columns are required and not repeated); 0 for others. */
  private static long values(PageHeader header) {
    if (header.getType() == PageType.DATA_PAGE && header.isSetData_page_header()) {
      return header.getData_page_header().getNum_values();
    }
    if (header.getType() == PageType.DATA_PAGE_V2 && header.isSetData_page_header_v2()) {
      return header.getData_page_header_v2().getNum_rows();
    }
    return 0;
  }

  /** Decompresses a data page and checks the sizes of plain values; the problem, or null. */
  // BytesInput.toByteArray() is deprecated for allocator-managed buffers; a page checked here is
  // read once into a plain array that the garbage collector frees, which is what this method wants.
  @SuppressWarnings("deprecation")
  private @Nullable String decode(PageHeader header, int at, int size, @Nullable Column column,
      BytesInputDecompressor decompressor, long values) {
    byte[] plain;
    Encoding encoding;
    try {
      if (header.getType() == PageType.DATA_PAGE) {
        DataPageHeader h = header.getData_page_header();
        encoding = h.getEncoding();
        plain = decompressor.decompress(BytesInput.from(file, at, size), header.getUncompressed_page_size()).toByteArray();
      } else {
        DataPageHeaderV2 h = header.getData_page_header_v2();
        encoding = h.getEncoding();
        int levels = h.getRepetition_levels_byte_length() + h.getDefinition_levels_byte_length();
        BytesInput data = BytesInput.from(file, at + levels, size - levels);
        int uncompressed = header.getUncompressed_page_size() - levels;
        plain = h.isIs_compressed() ? decompressor.decompress(data, uncompressed).toByteArray() : data.toByteArray();
      }
    } catch (IOException | RuntimeException e) {
      return "cannot decompress it: " + e.getMessage();
    }
    if (column == null || encoding != Encoding.PLAIN || header.getType() != PageType.DATA_PAGE) {
      return null; // a column the index does not list, or another writer's encoding: the reader's decode checks it
    }
    PrimitiveTypeName type = column.physical().getPrimitiveTypeName();
    if (column.binary()) {
      return binaries(plain, values, column);
    }
    long expected = switch (type) {
      case BOOLEAN -> (values + 7) / 8;
      case INT32, FLOAT -> values * 4;
      case INT64, DOUBLE -> values * 8;
      default -> values * column.rowBytes();
    };
    return plain.length == expected ? null : "its " + values + " values take " + plain.length + " bytes, expected "
        + expected + " (" + column.shape() + " " + column.dtype() + " per sample)";
  }

  /** Walks plain binary values (a length, then the bytes): each a whole number of steps. */
  private static @Nullable String binaries(byte[] plain, long values, Column column) {
    ByteBuffer b = ByteBuffer.wrap(plain).order(ByteOrder.LITTLE_ENDIAN);
    for (long v = 0; v < values; v++) {
      if (b.remaining() < 4) {
        return "value " + v + " of " + values + " is cut short";
      }
      int n = b.getInt();
      if (n < 0 || n > b.remaining() || n % column.valueStep() != 0) {
        return "value " + v + " says it holds " + n + " bytes (" + b.remaining() + " left), expected a whole number of"
            + " steps of " + column.valueStep() + " bytes";
      }
      b.position(b.position() + n);
    }
    return b.remaining() == 0 ? null : b.remaining() + " bytes after its " + values + " values";
  }
}
