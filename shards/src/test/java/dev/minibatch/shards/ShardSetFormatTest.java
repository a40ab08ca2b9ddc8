package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@link ShardSetFormat} on a set whose rows say which sample they are: sample {@code i} holds
 * {@code i} in each of its 2048 floats (8 KiB, so Parquet's 1 MiB pages hold about a hundred rows
 * and each file has several pages) and label {@code i % 7}, 1200 samples in 2 files of 600. Where a
 * page lies, and which rows it holds, is read from the file's offset index with Parquet's own
 * reader, not from the format's page walk.
 */
class ShardSetFormatTest {
  static final int N = 1200;
  static final int PER_FILE = 600;
  static final int FLOATS = 2048;
  static final Format FORMAT = new ShardSetFormat();

  @TempDir Path dir;

  /** Writes the set to {@code location} (a local path or a URI) and returns it. */
  static void write(String location, Configuration conf) {
    float[][] data = new float[N][FLOATS];
    int[] labels = new int[N];
    for (int i = 0; i < N; i++) {
      java.util.Arrays.fill(data[i], i);
      labels[i] = i % 7;
    }
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(data))
        .label("y", Nd4j.createFromArray(labels)).batchSize(100).build()) {
      assertEquals(2, ShardWriter.builder().samplesPerFile(PER_FILE).configuration(conf).build()
          .write(source, location).files());
    }
  }

  /** A damaged page: where to flip a byte, and the rows of the shard set the page holds. */
  record Damage(long offset, long firstRow, long lastRow) {}

  /**
   * Page {@code page} of column {@code x} in the file's first row group, from the offset index; the
   * byte to flip is 16 before the page's end, in its values (the header is at its start).
   */
  static Damage page(byte[] file, int fileIndex, int page) throws Exception {
    try (ParquetFileReader reader = ParquetFileReader.open(new BytesInputFile(file))) {
      BlockMetaData group = reader.getFooter().getBlocks().get(0);
      ColumnChunkMetaData x = group.getColumns().stream().filter(c -> c.getPath().toDotString().equals("x")).findFirst()
          .orElseThrow();
      OffsetIndex pages = reader.readOffsetIndex(x);
      assertTrue(pages.getPageCount() >= 2, "premise: column x spans several pages, found " + pages.getPageCount());
      long first = pages.getFirstRowIndex(page);
      long next = page + 1 < pages.getPageCount() ? pages.getFirstRowIndex(page + 1) : group.getRowCount();
      long base = (long) fileIndex * PER_FILE;
      return new Damage(pages.getOffset(page) + pages.getCompressedPageSize(page) - 16, base + first, base + next - 1);
    }
  }

  static List<String> validate(Location location) {
    Format.Problems problems = new Format.Problems(100);
    FORMAT.validate(location, Format.Options.defaults(), problems);
    return problems.list().stream().map(Format.Problems.Problem::toString).toList();
  }

  @Test
  void isAServiceTriedAfterRecordIO() {
    List<String> names = new ArrayList<>();
    ServiceLoader.load(Format.class).stream().map(ServiceLoader.Provider::get)
        .sorted(java.util.Comparator.comparingInt(Format::probeOrder)).forEach(f -> names.add(f.name()));
    assertEquals(List.of("idx", "hdf5", "recordio", "shards", "folder", "csv"), names);
  }

  @Test
  void describeCountsFilesRowsAndColumns() {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    assertTrue(FORMAT.probe(Location.of(set), Format.head(set)));
    assertTrue(!FORMAT.probe(Location.of(dir), Format.head(dir)), "a directory without shards.index");
    Format.Report r = FORMAT.describe(set, Format.Options.defaults());
    assertEquals("1200", r.field("samples"));
    assertEquals("2", r.field("files"));
    assertEquals("data, (2048,) FLOAT32 per sample", r.field("column x"));
    assertEquals("label, () INT32 per sample", r.field("column y"));
    java.io.StringWriter out = new java.io.StringWriter();
    r.print(new java.io.PrintWriter(out));
    assertTrue(out.toString().contains("part-00000.parquet: rows 0 to 599 (600 rows, "), out.toString());
    assertTrue(out.toString().contains("part-00001.parquet: rows 600 to 1199 (600 rows, "), out.toString());
  }

  @Test
  void validateNamesTheFileAndTheRowsOfEachDamagedPage() throws Exception {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    assertEquals(List.of(), validate(Location.of(set)));

    Path second = set.resolve("part-00001.parquet");
    byte[] bytes = Files.readAllBytes(second);
    Damage d = page(bytes, 1, 1);
    bytes[(int) d.offset()] ^= 0x40;
    Files.write(second, bytes);
    List<String> found = validate(Location.of(set));
    assertEquals(1, found.size(), found.toString());
    String where = ShardStore.uri(set.toString()) + "part-00001.parquet";
    assertTrue(found.get(0).startsWith(where + ": rows " + d.firstRow() + " to " + d.lastRow() + " of the shard set ("
        + (d.firstRow() - PER_FILE) + " to " + (d.lastRow() - PER_FILE) + " of the file), column 'x', page 1 at offset "),
        found.get(0));
    assertTrue(found.get(0).endsWith(": the page is corrupt"), found.get(0));

    // A second damaged page, in the other file: both are named, in file order.
    Path first = set.resolve("part-00000.parquet");
    byte[] other = Files.readAllBytes(first);
    Damage d0 = page(other, 0, 0);
    other[(int) d0.offset()] ^= 0x01;
    Files.write(first, other);
    found = validate(Location.of(set));
    assertEquals(2, found.size(), found.toString());
    assertTrue(found.get(0).contains("part-00000.parquet: rows 0 to " + d0.lastRow() + " of the shard set"),
        found.get(0));
    assertTrue(found.get(1).startsWith(where + ": rows " + d.firstRow() + " to "), found.get(1));
  }

  @Test
  void validateNamesAFileCutShortAndAnIndexLine() throws Exception {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    Path second = set.resolve("part-00001.parquet");
    byte[] bytes = Files.readAllBytes(second);
    Files.write(second, java.util.Arrays.copyOf(bytes, 1000));
    List<String> found = validate(Location.of(set));
    assertEquals(List.of(ShardStore.uri(set.toString()) + "part-00001.parquet: the file is 1000 bytes, the index says "
        + bytes.length + ": the file was changed or cut after the index was written"), found);

    Path index = set.resolve("shards.index");
    Files.writeString(index, Files.readString(index).replace(" FLOAT32 ", " FLOAT33 "));
    found = validate(Location.of(set));
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).startsWith(ShardStore.uri(set.toString()) + "shards.index: line 2, column ")
        && found.get(0).contains("found 'FLOAT33'"), found.get(0));
  }

  @Test
  void providerGivesEverySampleOnceInTheOptionsBatches() {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    Format.Options o = Format.Options.builder().settings(Settings.builder().batchSize(64).shuffle(true).seed(5).build()).build();
    Set<Integer> seen = new HashSet<>();
    try (var p = FORMAT.provider(set, o)) {
      assertEquals(64, p.batchSize());
      for (var b : p) {
        NamedBatch nb = (NamedBatch) b;
        for (int r = 0; r < nb.rows(); r++) {
          int id = (int) nb.get("x").getFloat(r, 0);
          assertEquals(id % 7, nb.get("y").getInt(r));
          assertTrue(seen.add(id), "sample " + id + " twice");
        }
      }
    }
    assertEquals(N, seen.size());
  }

  @Test
  void hdfs() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      remote(hdfs.root(), hdfs.conf(), properties(hdfs.conf(), "dfs."));
    }
  }

  @Test
  void s3() throws Exception {
    try (LoopbackS3 s3 = LoopbackS3.start()) {
      remote(s3.root(), s3.conf(), properties(s3.conf(), "fs.s3a."));
    }
  }

  /** The client settings a test server's configuration sets, to be given as a location's properties. */
  static Map<String, String> properties(Configuration conf, String prefix) {
    Configuration defaults = new Configuration();
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith(prefix) && !e.getValue().equals(defaults.get(e.getKey()))) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  private static void remote(URI root, Configuration conf, Map<String, String> properties) throws Exception {
    String set = root.resolve("digits/").toString();
    write(set, conf);
    Location location = Location.parse(set).withProperties(properties);
    assertTrue(FORMAT.probe(location, Format.head(location)));
    Format.Report r = FORMAT.describe(location, Format.Options.defaults());
    assertEquals("1200", r.field("samples"));
    assertEquals("2", r.field("files"));
    assertEquals(List.of(), validate(location));
    Damage d;
    try (FileSystem fs = FileSystem.newInstance(root, conf)) {
      org.apache.hadoop.fs.Path part = new org.apache.hadoop.fs.Path(set + "part-00001.parquet");
      byte[] bytes;
      try (var in = fs.open(part)) {
        bytes = in.readAllBytes();
      }
      d = page(bytes, 1, 0);
      bytes[(int) d.offset()] ^= 0x10;
      try (OutputStream out = fs.create(part, true)) {
        out.write(bytes);
      }
    }
    List<String> found = validate(location);
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).startsWith(set + "part-00001.parquet: rows 600 to " + d.lastRow() + " of the shard set"),
        found.get(0));
  }
}
