package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.shards.servers.LoopbackHdfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@code inspect}, {@code validate} and {@code bench} on a shard set, found by the shard-set format
 * service of {@code minibatch-shards}: 1200 samples in 2 files of 600, sample {@code i} holding
 * {@code i} in each of its 2048 floats (so a file has several Parquet pages) and label {@code i % 7}.
 * The damaged page's rows come from the file's offset index, read with Parquet's own reader.
 */
class CliShardsTest {
  static final int N = 1200;
  static final int PER_FILE = 600;

  @TempDir Path dir;

  static void write(String location, Configuration conf) {
    float[][] data = new float[N][2048];
    int[] labels = new int[N];
    for (int i = 0; i < N; i++) {
      java.util.Arrays.fill(data[i], i);
      labels[i] = i % 7;
    }
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(data))
        .label("y", Nd4j.createFromArray(labels)).batchSize(100).build()) {
      ShardWriter.builder().samplesPerFile(PER_FILE).configuration(conf).build().write(source, location);
    }
  }

  static void assertCounts(CliTest.Run r) {
    assertEquals(0, r.code(), r.err());
    assertTrue(Pattern.compile("(?m)^format: +shard set").matcher(r.out()).find(), r.out());
    assertTrue(Pattern.compile("(?m)^samples: +1200$").matcher(r.out()).find(), r.out());
    assertTrue(Pattern.compile("(?m)^files: +2$").matcher(r.out()).find(), r.out());
    assertTrue(Pattern.compile("(?m)^column x: +data, \\(2048,\\) FLOAT32 per sample$").matcher(r.out()).find(), r.out());
    assertTrue(r.out().contains("part-00001.parquet: rows 600 to 1199 (600 rows, "), r.out());
  }

  @Test
  void inspectShowsTheCountsOfTheIndex() {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    CliTest.Run r = CliTest.run("inspect", set.toString());
    assertCounts(r);
    assertTrue(r.out().startsWith("file: " + set + " ("), r.out());
  }

  @Test
  void validateNamesTheFileAndTheRowsOfAFlippedByte() throws Exception {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    CliTest.Run ok = CliTest.run("validate", set.toString());
    assertEquals(0, ok.code(), ok.out() + ok.err());
    assertEquals(set + ": ok (shards)\n", ok.out());

    Path file = set.resolve("part-00001.parquet");
    long offset;
    long first;
    long last;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      BlockMetaData group = reader.getFooter().getBlocks().get(0);
      ColumnChunkMetaData x = group.getColumns().stream().filter(c -> c.getPath().toDotString().equals("x"))
          .findFirst().orElseThrow();
      OffsetIndex pages = reader.readOffsetIndex(x);
      assertTrue(pages.getPageCount() >= 3, "premise: several pages, found " + pages.getPageCount());
      // The last byte but 16 of page 1: in its values (its header is at its start).
      offset = pages.getOffset(1) + pages.getCompressedPageSize(1) - 16;
      first = PER_FILE + pages.getFirstRowIndex(1);
      last = PER_FILE + pages.getFirstRowIndex(2) - 1;
    }
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) offset] ^= 0x04;
    Files.write(file, bytes);

    CliTest.Run r = CliTest.run("validate", set.toString());
    assertEquals(Minibatch.ExitCode.PROBLEMS, r.code(), r.out() + r.err());
    String[] lines = r.out().split("\n");
    assertEquals(2, lines.length, r.out());
    assertTrue(lines[0].startsWith(set.toAbsolutePath().toUri() + "part-00001.parquet: rows " + first + " to " + last
        + " of the shard set (" + (first - PER_FILE) + " to " + (last - PER_FILE) + " of the file), column 'x', page 1 "),
        r.out());
    assertEquals(set + ": 1 problem", lines[1]);
  }

  @Test
  void benchReadsTheSetThroughItsProvider() {
    Path set = dir.resolve("set");
    write(set.toString(), new Configuration());
    CliTest.Run r = CliTest.run("bench", "--no-progress", "--batch", "100", "--epochs", "1", "--warmup", "0",
        set.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("provider: ShardProvider, x (100, 2048) FLOAT32, y (100,) INT32"), r.out());
    assertTrue(r.out().contains("epoch 1:  1200 samples in 12 batches"), r.out());
  }

  @Test
  void inspectAndValidateAShardSetOnHdfs() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      String set = hdfs.root().resolve("digits/").toString();
      write(set, hdfs.conf());
      // The client settings of the test cluster (no cache of idle connections), as a user gives them.
      String[] conf = {"--conf", "dfs.client.context=" + hdfs.conf().get("dfs.client.context"),
          "--conf", "dfs.client.socketcache.capacity=0"};
      CliTest.Run r = CliTest.run(concat(new String[] {"inspect"}, conf, set));
      assertCounts(r);
      assertTrue(r.out().startsWith("file: " + set + "\n"), r.out());
      CliTest.Run v = CliTest.run(concat(new String[] {"validate"}, conf, set));
      assertEquals(0, v.code(), v.out() + v.err());
      assertEquals(set + ": ok (shards)\n", v.out());
    }
  }

  private static String[] concat(String[] a, String[] b, String last) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length + 1);
    System.arraycopy(b, 0, all, a.length, b.length);
    all[all.length - 1] = last;
    return all;
  }
}
