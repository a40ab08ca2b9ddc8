package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.Role;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shape.Shape;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scalars in Parquet's own types (format 2), read by Parquet's example reader and by DuckDB as
 * numbers, and back by the provider; and a set of format 1 (scalars as fixed_len_byte_array),
 * written by the version before and kept in test resources, still read. The values are {@link
 * ScalarsFixture}'s, by construction.
 */
class ScalarColumnsTest {
  @TempDir static Path dir;
  private static String set;

  @BeforeAll
  static void write() {
    set = dir.resolve("scalars").toString();
    try (var source = ScalarsFixture.provider()) {
      ShardWriter.builder().samplesPerFile(6).build().write(source, set);
    }
  }

  @Test
  void scalarsAreStoredInParquetsOwnTypes() throws IOException {
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("x", "required fixed_len_byte_array(8) x");
    expected.put("label", "required int32 label");
    expected.put("weight", "required double weight");
    expected.put("big", "required int64 big");
    expected.put("small", "required int32 small (INTEGER(8,true))");
    expected.put("short16", "required int32 short16 (INTEGER(16,true))");
    expected.put("byte8", "required int32 byte8 (INTEGER(8,false))");
    expected.put("flag", "required boolean flag");
    expected.put("score", "required float score");
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(Path.of(set, "part-00000.parquet").toUri());
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, new Configuration()))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      for (Map.Entry<String, String> e : expected.entrySet()) {
        assertEquals(e.getValue(), schema.getType(e.getKey()).toString());
      }
      assertEquals("3", r.getFooter().getFileMetaData().getKeyValueMetaData().get("minibatch.version"));
    }
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), file).build()) {
      for (int i = 0; i < 6; i++) {
        Group g = reader.read();
        assertEquals(i % 3, g.getInteger("label", 0));
        assertEquals(i / 4.0, g.getDouble("weight", 0));
        assertEquals(i * 10_000_000_000L, g.getLong("big", 0));
        assertEquals(i - 6, g.getInteger("small", 0));
        assertEquals(i * 1000 - 6000, g.getInteger("short16", 0));
        assertEquals(250 - i, g.getInteger("byte8", 0));
        assertEquals(i % 2 == 1, g.getBoolean("flag", 0));
        assertEquals(i / 8f, g.getFloat("score", 0));
      }
    }
  }

  @Test
  void duckDbGroupsAndSumsTheScalars() throws SQLException {
    String files = Path.of(set).resolve("*.parquet").toString().replace("'", "''");
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = db.createStatement()) {
      List<String> groups = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SELECT label, count(*) FROM read_parquet('" + files
          + "') GROUP BY label ORDER BY label")) {
        while (rs.next()) {
          groups.add(rs.getInt(1) + ":" + rs.getLong(2));
        }
      }
      assertEquals(List.of("0:4", "1:4", "2:4"), groups, "12 samples, label = id mod 3");
      try (ResultSet rs = st.executeQuery("SELECT typeof(label), typeof(weight), typeof(big), typeof(small),"
          + " typeof(short16), typeof(byte8), typeof(flag), typeof(score), sum(big), min(small), max(byte8),"
          + " count(*) FILTER (WHERE flag), sum(weight), min(short16) FROM read_parquet('" + files + "')"
          + " GROUP BY ALL")) {
        assertTrue(rs.next());
        assertEquals(List.of("INTEGER", "DOUBLE", "BIGINT", "TINYINT", "SMALLINT", "UTINYINT", "BOOLEAN", "FLOAT"),
            List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8)));
        // By hand over ids 0..11: sum(i * 10^10) = 66 * 10^10; min(i - 6) = -6; max(250 - i) = 250;
        // odd ids: 6; sum(i / 4) = 16.5; min(1000 i - 6000) = -6000.
        assertEquals(660_000_000_000L, rs.getLong(9));
        assertEquals(-6, rs.getInt(10));
        assertEquals(250, rs.getInt(11));
        assertEquals(6, rs.getLong(12));
        assertEquals(16.5, rs.getDouble(13));
        assertEquals(-6000, rs.getInt(14));
      }
    }
  }

  @Test
  void theProviderReadsFormatTwoAndFormatOneAlike() throws URISyntaxException {
    String v1 = Path.of(ScalarColumnsTest.class.getResource("/shards/v1-scalars/shards.index").toURI()).getParent()
        .toString();
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(Path.of(v1, "part-00000.parquet").toUri());
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, new Configuration()))) {
      PrimitiveType label = r.getFooter().getFileMetaData().getSchema().getType("label").asPrimitiveType();
      assertEquals(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, label.getPrimitiveTypeName(), "a genuine format 1 file");
      assertEquals("1", r.getFooter().getFileMetaData().getKeyValueMetaData().get("minibatch.version"));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    for (String location : List.of(set, v1)) {
      try (ShardProvider p = ShardProvider.builder(location).batchSize(5).build()) {
        int id = 0;
        for (NamedBatch b : p) {
          for (int r = 0; r < b.countSamples(); r++, id++) {
            String at = location + " sample " + id;
            assertArrayEquals(new float[] {id, -id}, b.get("x").getRow(r).toFloatVector(), at);
            assertEquals(id % 3, b.get("label").getInt(r), at);
            assertEquals(id / 4.0, b.get("weight").getDouble(r), at);
            assertEquals(id * 10_000_000_000L, b.get("big").getLong(r), at);
            assertEquals(id - 6, b.get("small").getInt(r), at);
            assertEquals(id * 1000 - 6000, b.get("short16").getInt(r), at);
            assertEquals(250 - id, b.get("byte8").getInt(r), at);
            assertEquals(id % 2 == 1, b.get("flag").getDouble(r) != 0, at);
            assertEquals(id / 8f, b.get("score").getFloat(r), at);
          }
        }
        assertEquals(ScalarsFixture.N, id);
      }
    }
  }

  @Test
  void anIntegerOutsideItsColumnsTypeIsNamed() {
    ShardColumns.Column small = ShardColumns.Column.of("small", Role.LABEL, Shape.of(new long[0]), DType.UINT8);
    byte[] out = new byte[4];
    ScalarBytes.putInt(255, out, 1, small, "file:/s/part-00000.parquet", 7);
    assertEquals((byte) 255, out[1]);
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> ScalarBytes.putInt(256, out, 0, small, "file:/s/part-00000.parquet", 7));
    assertEquals("file:/s/part-00000.parquet: row 7 (of the file), column 'small': 256, expected UINT8 in [0, 255]",
        e.getMessage());
    assertTrue(LogicalTypeAnnotation.intType(8, false).equals(small.physical().getLogicalTypeAnnotation()));
  }
}
