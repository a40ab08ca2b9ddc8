package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.Role;
import dev.minibatch.shape.Shape;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pages {@link ColumnChunks} writes from rows' bytes, read back by Parquet's own reader (an
 * independent decoder): small page and row group sizes cut a few hundred rows into many pages and
 * row groups, so values straddle every kind of boundary (a boolean page of a count that is not a
 * multiple of 8, binary values of every length). Row {@code i}: {@code x = [i, -i, i / 2]} float32,
 * {@code flag = i mod 3 == 0}, {@code label = i mod 7 - 3} as INT16, {@code steps} {@code i mod 5}
 * int32 steps of value {@code i}, {@code big = i * 10^9} int64.
 */
class ColumnChunksTest {
  private static final int ROWS = 777;
  private static final List<Column> COLUMNS = List.of(
      Column.of("x", Role.DATA, Shape.of(3), DType.FLOAT32),
      Column.of("flag", Role.DATA, Shape.scalar(), DType.BOOL),
      Column.of("steps", Role.DATA, Shape.of(Shape.VARIABLE), DType.INT32),
      Column.of("big", Role.DATA, Shape.scalar(), DType.INT64),
      Column.of("label", Role.LABEL, Shape.scalar(), DType.INT16));

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class, names = {"UNCOMPRESSED", "SNAPPY", "ZSTD"})
  void parquetsOwnReaderReadsEveryValueAndTheScalarsStatistics(CompressionCodecName codec) throws IOException {
    Configuration conf = new Configuration();
    // Pages of about 100 bytes, row groups of about 4 000: 9 rows of x a page, several row groups;
    // two files through the same buffers, as a segment writes its files.
    ColumnChunks chunks = new ColumnChunks(COLUMNS, codec, conf, 100, 4_000);
    for (String name : List.of("first.parquet", "second.parquet")) {
      Path path = dir.resolve(name);
      CrcOutputFile out = output(path, conf);
      ParquetFileWriter w = chunks.newFile(out);
      w.start();
      chunks.start(() -> w, "test");
      TestRow row = new TestRow();
      for (int i = 0; i < ROWS; i++) {
        row.i = i;
        chunks.write(row);
      }
      chunks.flush();
      w.end(ShardColumns.metadata(COLUMNS));
      assertEquals(java.nio.file.Files.size(path), out.length(), "the bytes counted are the file's");
      readBack(path, codec, conf);
    }
    chunks.release();
  }

  @Test
  void aRowThatWouldOverfillTheRowGroupStartsTheNextOneSoBuffersStayWithinIt() throws IOException {
    // Rows of 100 000 bytes, row groups of 2^18 = 262 144: two rows fit (200 000), a third would not,
    // so every row group holds 2 rows and no buffer grows past 2^18 (doubling from 64 KiB: 2^16, 2^17, 2^18).
    List<Column> one = List.of(Column.of("x", Role.DATA, Shape.of(100_000), DType.UINT8));
    Configuration conf = new Configuration();
    ColumnChunks chunks = new ColumnChunks(one, CompressionCodecName.UNCOMPRESSED, conf, 1 << 20, 1 << 18);
    Path path = dir.resolve("big-rows.parquet");
    ParquetFileWriter w = chunks.newFile(output(path, conf));
    w.start();
    chunks.start(() -> w, "test");
    byte[] row = new byte[100_000];
    for (int i = 0; i < 9; i++) {
      java.util.Arrays.fill(row, (byte) i);
      chunks.write(new ShardWriter.Row() {
        @Override
        public byte[] bytes(int c) {
          return row;
        }

        @Override
        public int length(int c) {
          return row.length;
        }
      });
      assertTrue(chunks.largestBuffer() <= 1 << 18, "a buffer of " + chunks.largestBuffer() + " bytes after row " + i);
    }
    chunks.flush();
    w.end(ShardColumns.metadata(one));
    chunks.release();
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path.toUri());
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      assertEquals(List.of(2L, 2L, 2L, 2L, 1L), r.getFooter().getBlocks().stream().map(BlockMetaData::getRowCount).toList());
    }
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), file).build()) {
      for (int i = 0; i < 9; i++) {
        byte[] x = reader.read().getBinary("x", 0).getBytes();
        assertEquals(100_000, x.length);
        assertEquals(i, x[0]);
        assertEquals(i, x[99_999]);
      }
    }
  }

  @Test
  void floatDoubleAndBooleanScalarsCarryTheirMinAndMax() throws IOException {
    // Rows 0..9: score = i / 4 (float), loss = -i (double), flag = i mod 3 == 0: min/max by hand.
    List<Column> cols = List.of(Column.of("score", Role.DATA, Shape.scalar(), DType.FLOAT32),
        Column.of("loss", Role.DATA, Shape.scalar(), DType.FLOAT64),
        Column.of("flag", Role.LABEL, Shape.scalar(), DType.BOOL));
    Configuration conf = new Configuration();
    ColumnChunks chunks = new ColumnChunks(cols, CompressionCodecName.UNCOMPRESSED, conf, ColumnChunks.PAGE_BYTES, ColumnChunks.ROW_GROUP_BYTES);
    Path path = dir.resolve("scalars.parquet");
    ParquetFileWriter w = chunks.newFile(output(path, conf));
    w.start();
    chunks.start(() -> w, "test");
    byte[][] values = {new byte[4], new byte[8], new byte[1]};
    for (int i = 0; i < 10; i++) {
      ByteBuffer.wrap(values[0]).order(ByteOrder.LITTLE_ENDIAN).putFloat(i / 4f);
      ByteBuffer.wrap(values[1]).order(ByteOrder.LITTLE_ENDIAN).putDouble(-i);
      values[2][0] = (byte) (i % 3 == 0 ? 1 : 0);
      chunks.write(new ShardWriter.Row() {
        @Override
        public byte[] bytes(int c) {
          return values[c];
        }

        @Override
        public int length(int c) {
          return values[c].length;
        }
      });
    }
    chunks.flush();
    w.end(ShardColumns.metadata(cols));
    chunks.release();
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(
        new org.apache.hadoop.fs.Path(path.toUri()), conf))) {
      List<ColumnChunkMetaData> c = r.getFooter().getBlocks().get(0).getColumns();
      // Parquet writes a zero minimum as -0.0 and a zero maximum as +0.0 (the format's rule for
      // floating-point zeros in statistics), so readers never exclude a page holding either zero.
      assertEquals(-0f, c.get(0).getStatistics().genericGetMin());
      assertEquals(2.25f, c.get(0).getStatistics().genericGetMax());
      assertEquals(-9.0, c.get(1).getStatistics().genericGetMin());
      assertEquals(0.0, c.get(1).getStatistics().genericGetMax());
      assertEquals(false, c.get(2).getStatistics().genericGetMin());
      assertEquals(true, c.get(2).getStatistics().genericGetMax());
    }
  }

  /** The local file {@code path} as the shard writer writes one. */
  private static CrcOutputFile output(Path path, Configuration conf) throws IOException {
    return new CrcOutputFile(FileSystem.getLocal(conf).getRaw(), new org.apache.hadoop.fs.Path(path.toUri()),
        path.toFile(), CrcOutputFile.buffer());
  }

  private static void readBack(Path path, CompressionCodecName codec, Configuration conf) throws IOException {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path.toUri());
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), file).build()) {
      for (int i = 0; i < ROWS; i++) {
        Group g = reader.read();
        ByteBuffer x = g.getBinary("x", 0).toByteBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(i, x.getFloat(0), "x[0] of row " + i);
        assertEquals(-i, x.getFloat(4));
        assertEquals(i / 2f, x.getFloat(8));
        assertEquals(i % 3 == 0, g.getBoolean("flag", 0), "flag of row " + i);
        ByteBuffer steps = g.getBinary("steps", 0).toByteBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(4 * (i % 5), steps.remaining(), "steps of row " + i);
        for (int k = 0; k < i % 5; k++) {
          assertEquals(i, steps.getInt(4 * k));
        }
        assertEquals(i * 1_000_000_000L, g.getLong("big", 0));
        assertEquals(i % 7 - 3, g.getInteger("label", 0), "label of row " + i);
      }
      assertEquals(null, reader.read(), "no row after the last");
    }
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      List<BlockMetaData> groups = r.getFooter().getBlocks();
      assertTrue(groups.size() > 5, groups.size() + " row groups");
      long first = 0;
      for (BlockMetaData b : groups) {
        long n = b.getRowCount();
        ColumnChunkMetaData big = b.getColumns().get(3);
        Statistics<?> s = big.getStatistics();
        assertEquals(first * 1_000_000_000L, ((Number) s.genericGetMin()).longValue(), "big's min in a row group");
        assertEquals((first + n - 1) * 1_000_000_000L, ((Number) s.genericGetMax()).longValue());
        assertEquals(0, s.getNumNulls());
        // label cycles through -3..3 in any 7 rows.
        Statistics<?> label = b.getColumns().get(4).getStatistics();
        assertEquals(n >= 7 ? -3 : null, n >= 7 ? ((Number) label.genericGetMin()).intValue() : null);
        // x's min and max as Parquet orders fixed-length bytes, unsigned byte by byte, over the group's rows.
        byte[] min = null;
        byte[] max = null;
        for (long i = first; i < first + n; i++) {
          byte[] x = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putFloat(i).putFloat(-i).putFloat(i / 2f)
              .array();
          min = min == null || java.util.Arrays.compareUnsigned(x, min) < 0 ? x : min;
          max = max == null || java.util.Arrays.compareUnsigned(x, max) > 0 ? x : max;
        }
        Statistics<?> xs = b.getColumns().get(0).getStatistics();
        assertTrue(xs.hasNonNullValue(), "x carries min/max: a page without them reads as all-null in the column index");
        assertArrayEquals(min, xs.getMinBytes());
        assertArrayEquals(max, xs.getMaxBytes());
        assertEquals(codec, b.getColumns().get(0).getCodec());
        first += n;
      }
      assertEquals(ROWS, first);
      assertEquals("3", r.getFooter().getFileMetaData().getKeyValueMetaData().get(ShardColumns.VERSION_KEY));
    }
  }

  /** Row {@link #i} of the class's formulas, as the writer's cursor gives a row: little-endian bytes per column. */
  private static final class TestRow implements ShardWriter.Row {
    int i;
    private final byte[][] bytes = {new byte[12], new byte[1], new byte[16], new byte[8], new byte[2]};
    private final int[] lengths = new int[5];

    @Override
    public byte[] bytes(int c) {
      ByteBuffer b = ByteBuffer.wrap(bytes[c]).order(ByteOrder.LITTLE_ENDIAN);
      switch (c) {
        case 0 -> b.putFloat(i).putFloat(-i).putFloat(i / 2f);
        case 1 -> b.put((byte) (i % 3 == 0 ? 1 : 0));
        case 2 -> {
          for (int k = 0; k < i % 5; k++) {
            b.putInt(i);
          }
        }
        case 3 -> b.putLong(i * 1_000_000_000L);
        default -> b.putShort((short) (i % 7 - 3));
      }
      lengths[c] = b.position();
      return bytes[c];
    }

    @Override
    public int length(int c) {
      return lengths[c];
    }
  }
}
