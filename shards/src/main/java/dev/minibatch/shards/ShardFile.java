package dev.minibatch.shards;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.io.InputStream;
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
 * One shard file decoded: each column's samples as one array of bytes, row after row, ready to be
 * copied into batches. A file as {@link ShardWriter} writes it (required fixed-size binary columns,
 * plain encoding, no dictionary) decodes with one copy per page; any other Parquet file with the
 * index's columns as fixed-size or variable binary of the right length (one Spark wrote, say)
 * decodes through Parquet's column reader, value by value. A column with a variable axis (a binary
 * column of each sample's real steps) decodes value by value too, with where each row ends.
 */
final class ShardFile {
  private ShardFile() {}

  /**
   * A decoded file.
   *
   * @param columns per column, the rows' bytes back to back
   * @param ends per column with a variable axis or of encoded images, where each row's bytes end in {@code columns}
   *     ({@code ends[c][r]}; row {@code r} starts where row {@code r - 1} ends, row 0 at 0); null for a
   *     fixed column, whose rows are {@link Column#rowBytes()} each
   */
  record Decoded(byte[][] columns, int[] @Nullable [] ends) {
    /** The steps of row {@code row} of variable column {@code c}. */
    int steps(int c, int row, int stepBytes) {
      int[] e = java.util.Objects.requireNonNull(ends[c]);
      return (e[row] - (row == 0 ? 0 : e[row - 1])) / stepBytes;
    }

    /** Where row {@code row} of variable column {@code c} starts in {@code columns[c]}. */
    int start(int c, int row) {
      return row == 0 ? 0 : java.util.Objects.requireNonNull(ends[c])[row - 1];
    }
  }

  /**
   * The columns of {@code file}, the whole bytes of {@code entry}.
   *
   * @param where the file's location, for messages
   * @throws FileFormatException if the bytes do not match the index's checksum, or are not a
   *     Parquet file with the index's columns and sample count; the message names the file, and
   *     for a failure inside the data the rows it was decoding
   */
  static Decoded decode(byte[] file, ShardIndex.Entry entry, List<Column> columns, String where) {
    return decode(file, entry, columns, where, false);
  }

  /**
   * As {@link #decode(byte[], ShardIndex.Entry, List, String)}; with {@code checked}, the bytes were
   * checked against the index's checksum already (as they arrived in the disk cache) or are trusted
   * (a copy there), and are not summed again.
   */
  static Decoded decode(byte[] file, ShardIndex.Entry entry, List<Column> columns, String where, boolean checked) {
    CRC32C crc = new CRC32C();
    if (!checked) {
      crc.update(file, 0, file.length);
    }
    boolean intact = checked || (int) crc.getValue() == entry.crc32c();
    Decoded out;
    try {
      // The file's checksum covers every page: the pages' own checksums are checked only to name the
      // rows of a file that fails it (a second pass over every byte otherwise).
      out = columns(file, entry, columns, where, !intact);
    } catch (FileFormatException e) {
      if (intact) {
        throw e;
      }
      String detail = e.getMessage().startsWith(where + ": ") ? e.getMessage().substring(where.length() + 2) : e.getMessage();
      throw new FileFormatException(where, "its CRC-32C is " + String.format("%08x", (int) crc.getValue())
          + ", the index says " + String.format("%08x", entry.crc32c()) + ": the file is corrupt; " + detail, e);
    }
    if (!intact) {
      throw new FileFormatException(where, "its CRC-32C is " + String.format("%08x", (int) crc.getValue())
          + ", the index says " + String.format("%08x", entry.crc32c()) + ": the file was changed or corrupted after the"
          + " index was written");
    }
    return out;
  }

  private static Decoded columns(byte[] file, ShardIndex.Entry entry, List<Column> columns, String where,
      boolean checkPages) {
    ParquetReadOptions options = ParquetReadOptions.builder().usePageChecksumVerification(checkPages).build();
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
      byte[][] out = new byte[columns.size()][];
      int[] @Nullable [] ends = new int[columns.size()][];
      for (int i = 0; i < descriptors.length; i++) {
        Column c = columns.get(i);
        descriptors[i] = descriptor(schema, c, where);
        if (c.binary()) {
          ends[i] = new int[entry.samples()];
          out[i] = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(16, chunkBytes(reader, descriptors[i])))];
        } else {
          out[i] = new byte[Math.multiplyExact(entry.samples(), c.rowBytes())];
        }
      }
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
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
          ColumnDescriptor d = descriptors[i];
          int rowBytes = columns.get(i).rowBytes();
          if (columns.get(i).binary()) {
            if (values == null) {
              values = new ColumnReadStoreImpl(group, new GroupRecordConverter(schema).getRootConverter(), schema,
                  reader.getFooter().getFileMetaData().getCreatedBy());
            }
            out[i] = copySteps(values.getColumnReader(d), d, out[i], ends[i], (int) row, (int) rowsInGroup, columns.get(i),
                where, row);
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
      return new Decoded(out, ends);
    } catch (FileFormatException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      String rows = rowsInGroup == 0 ? "" : " (rows " + (entry.first() + row) + " to " + (entry.first() + row
          + rowsInGroup - 1) + " of the shard set)";
      throw new FileFormatException(where, "not a readable Parquet shard file" + rows + ": " + e, e);
    }
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
