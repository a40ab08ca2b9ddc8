package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A shard set of variable-length samples ({@link Ragged}: every value, length and label known from
 * the sample's id), 300 samples in files of 64 (4 files of 64, one of 44). The longest {@code
 * tokens} is 13 steps (1 + 7i mod 13 takes every value 1 .. 13), the longest {@code frames} 5.
 */
class VariableShardSetTest {
  private static final int N = 300;

  @TempDir static Path dir;
  private static String set;

  @BeforeAll
  static void write() {
    set = dir.resolve("ragged").toString();
    try (Ragged r = Ragged.builder(N).batchSize(32).lastBatch(LastBatch.PARTIAL).build()) {
      ShardSet s = ShardWriter.builder().samplesPerFile(64).build().write(r, set);
      assertEquals(N, s.samples());
      assertEquals(5, s.files());
    }
  }

  private static ShardProvider provider(Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder b = ShardProvider.builder(set).batchSize(32);
    settings.accept(b);
    return b.build();
  }

  /**
   * The ids of a batch's samples, every array checked against the known values: each variable array
   * padded to the batch's longest sample with {@code tokensPad} (tokens) or 0 (frames), masks and
   * lengths by the ids' lengths.
   */
  static List<Integer> ids(NamedBatch b, int tokensPad) {
    int rows = b.countSamples();
    List<Integer> ids = new ArrayList<>();
    int tokenSteps = 1;
    int frameSteps = 1;
    for (int r = 0; r < rows; r++) {
      int id = b.get("tokens").getInt(r, 0) / 100;
      assertEquals(id % 10, b.get("digit").getInt(r));
      ids.add(id);
      tokenSteps = Math.max(tokenSteps, Ragged.tokens(id));
      frameSteps = Math.max(frameSteps, Ragged.frames(id));
    }
    INDArray tokens = b.get("tokens");
    INDArray frames = b.get("frames");
    assertArrayEquals(new long[] {b.rows(), tokenSteps}, tokens.shape(), "padded to the batch's longest tokens");
    assertArrayEquals(new long[] {b.rows(), 2, frameSteps}, frames.shape(), "padded to the batch's longest frames");
    for (int r = 0; r < rows; r++) {
      int id = ids.get(r);
      int n = Ragged.tokens(id);
      assertEquals(n, b.lengths("tokens").getInt(r), "length of sample " + id);
      for (int t = 0; t < tokenSteps; t++) {
        assertEquals(t < n ? id * 100 + t : tokensPad, tokens.getInt(r, t), "sample " + id + " step " + t);
        assertEquals(t < n ? 1f : 0f, b.mask("tokens").getFloat(r, t), "mask of sample " + id + " step " + t);
      }
      int m = Ragged.frames(id);
      assertEquals(m, b.lengths("frames").getInt(r));
      for (int c = 0; c < 2; c++) {
        for (int t = 0; t < frameSteps; t++) {
          assertEquals(t < m ? id * 1000 + c * 100 + t : 0f, frames.getFloat(r, c, t), "sample " + id + " [" + c
              + "][" + t + "]");
        }
      }
      for (int t = 0; t < frameSteps; t++) {
        assertEquals(t < m ? 1f : 0f, b.mask("frames").getFloat(r, t));
      }
    }
    return ids;
  }

  private static List<Integer> epoch(Iterator<NamedBatch> it, int tokensPad) {
    List<Integer> ids = new ArrayList<>();
    while (it.hasNext()) {
      ids.addAll(ids(it.next(), tokensPad));
    }
    return ids;
  }

  @Test
  void eachVariableArrayIsABinaryColumnOfTheSamplesRealSteps() throws IOException {
    String index = Files.readString(Path.of(set, ShardIndex.NAME));
    // Each column its SampleSchema field: the writer's default layouts (T for the variable axis), no bound.
    assertTrue(index.startsWith("minibatch-shards/2\ncolumn\ttokens DATA INT32 [VARIABLE] NT\n"
        + "column\tframes DATA FLOAT32 [2,VARIABLE] NCT\ncolumn\tdigit LABEL INT32 [] N\nlongest\ttokens\t13\n"
        + "longest\tframes\t5\nfile\tpart-00000.parquet\t0\t64\t"), index);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(Path.of(set, "part-00001.parquet").toUri());
    Configuration conf = new Configuration();
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      assertEquals(PrimitiveType.PrimitiveTypeName.BINARY, schema.getType("tokens").asPrimitiveType().getPrimitiveTypeName());
      assertEquals(PrimitiveType.PrimitiveTypeName.BINARY, schema.getType("frames").asPrimitiveType().getPrimitiveTypeName());
      assertEquals("tokens DATA INT32 [VARIABLE] NT\nframes DATA FLOAT32 [2,VARIABLE] NCT\ndigit LABEL INT32 [] N\n",
          r.getFooter().getFileMetaData().getKeyValueMetaData().get("minibatch.columns"));
      assertEquals("3", r.getFooter().getFileMetaData().getKeyValueMetaData().get("minibatch.version"));
    }
    try (ParquetReader<Group> rows = ParquetReader.builder(new GroupReadSupport(), file).withConf(conf).build()) {
      Group g = rows.read();
      // Sample 64: 1 + 448 mod 13 = 7 tokens; 1 + 64 mod 5 = 5 frames.
      ByteBuffer tokens = ByteBuffer.wrap(g.getBinary("tokens", 0).getBytes()).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(7 * 4, tokens.capacity(), "7 int32 steps, no padding");
      for (int t = 0; t < 7; t++) {
        assertEquals(6400 + t, tokens.getInt(4 * t));
      }
      ByteBuffer frames = ByteBuffer.wrap(g.getBinary("frames", 0).getBytes()).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(2 * 5 * 4, frames.capacity(), "2 x 5 float32, row-major");
      assertEquals(64_000 + 100 + 3, frames.getFloat(4 * (5 + 3)), 0f, "[1][3]");
    }
  }

  @Test
  void inOrderEachBatchIsPaddedToItsLongestSampleWithItsStepPadding() {
    try (ShardProvider p = provider(b -> b.stepPadding("tokens", -1))) {
      assertEquals(-1, p.provideData().get(0).shape().dim(1), "the variable axis is reported as -1");
      List<Integer> ids = epoch(p.iterator(), -1);
      assertEquals(N, ids.size());
      for (int i = 0; i < N; i++) {
        assertEquals(i, ids.get(i));
      }
    }
  }

  @Test
  void theBatchesAreTheInMemoryProvidersForTheSameSamples() {
    try (ShardProvider shards = provider(b -> b.lastBatch(LastBatch.PAD_WRAP));
        Ragged memory = Ragged.builder(N).batchSize(32).lastBatch(LastBatch.PAD_WRAP).build()) {
      Iterator<NamedBatch> a = shards.iterator();
      Iterator<NamedBatch> b = memory.iterator();
      int batches = 0;
      while (b.hasNext()) {
        NamedBatch x = a.next();
        NamedBatch y = b.next();
        for (String name : List.of("tokens", "frames", "digit")) {
          assertEquals(y.get(name), x.get(name), name + " of batch " + batches);
          if (!name.equals("digit")) {
            assertEquals(y.mask(name), x.mask(name), "mask of " + name + " in batch " + batches);
            assertEquals(y.lengths(name), x.lengths(name), "lengths of " + name + " in batch " + batches);
          }
        }
        assertEquals(y.pad(), x.pad());
        batches++;
      }
      assertTrue(!a.hasNext());
      assertEquals(10, batches, "ceil(300 / 32), the last wrapped");
    }
  }

  @Test
  void shuffledOnReaderThreadsTheBatchesFollowTheGlobalOrderAndAreStillPaddedPerBatch() {
    List<Integer> once;
    try (ShardProvider p = provider(b -> b.shuffle(true).seed(4).shuffleWindow(100))) {
      once = epoch(p.iterator(), 0);
    }
    Set<Integer> seen = new HashSet<>(once);
    assertEquals(N, seen.size(), "every sample once");
    try (ShardProvider p = provider(b -> b.shuffle(true).seed(4).shuffleWindow(100).readers(2))) {
      assertEquals(once, epoch(p.iterator(), 0), "the same order on 2 reader threads");
    }
  }

  @Test
  void aSampleLongerThanTheMaxLengthAskedForIsNamedByFileRowAndColumn() {
    try (ShardProvider p = provider(b -> b.maxLength("tokens", 5))) {
      assertEquals(5, p.provideData().get(0).maxLength());
      FileFormatException e = assertThrows(FileFormatException.class, () -> p.iterator().next());
      // Sample 1 is the first of more than 5 steps: 1 + 7 = 8.
      assertTrue(e.getMessage().contains("part-00000.parquet") && e.getMessage().contains("row 1 (of the file)")
          && e.getMessage().contains("column 'tokens'") && e.getMessage().contains("8 steps, expected at most maxLength 5"),
          e.getMessage());
    }
    try (ShardProvider p = provider(b -> b.maxLength("tokens", 13).stepPadding("frames", 2))) {
      // A bound every sample keeps: batches padded to their longest as before; frames padded with 2.
      assertEquals(13, p.provideData().get(0).maxLength());
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new long[] {32, 13}, b.get("tokens").shape(), "samples 0 .. 31 hold every length 1 .. 13");
      assertEquals(100f, b.get("frames").getFloat(0, 1, 0), "sample 0 [1][0]: 0 * 1000 + 1 * 100 + 0");
      assertEquals(2f, b.get("frames").getFloat(0, 1, 1), "sample 0 has 1 frame: step 1 is padding");
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> provider(b -> b.maxLength("digit", 3)));
    assertTrue(e.getMessage().contains("no column 'digit' with a variable axis"), e.getMessage());
  }

  /**
   * Issue 41, found by ShardFuzzTest: an index whose longest {@code tokens} is below a file's row
   * (here 5, where sample 1 holds 8 steps) sized batches to 5 steps and the copy of the row ran past
   * the batch's array. Without a declared maxLength the index's longest is the bound: a longer row
   * is the file's error, named by file, row and column.
   */
  @Test
  void aRowLongerThanTheIndexsLongestIsNamedByFileRowAndColumn() throws IOException {
    Path copy = dir.resolve("lying-longest");
    Files.createDirectories(copy);
    for (String name : List.of("part-00000.parquet", "part-00001.parquet", "part-00002.parquet", "part-00003.parquet",
        "part-00004.parquet")) {
      Files.copy(Path.of(set, name), copy.resolve(name));
    }
    String index = Files.readString(Path.of(set, ShardIndex.NAME));
    assertTrue(index.contains("longest\ttokens\t13\n"), index);
    Files.writeString(copy.resolve(ShardIndex.NAME), index.replace("longest\ttokens\t13\n", "longest\ttokens\t5\n"));
    try (ShardProvider p = ShardProvider.builder(copy.toString()).batchSize(32).build()) {
      FileFormatException e = assertThrows(FileFormatException.class, () -> p.iterator().next());
      assertTrue(e.file().endsWith("lying-longest/part-00000.parquet"), e.file());
      assertTrue(e.getMessage().endsWith(": row 1 (of the file), column 'tokens': 8 steps, more than the longest sample"
          + " the index records (5): the index does not describe this file"), e.getMessage());
    }
  }

  @Test
  void twoTrainersSaveAndOneResumesTheRestOfTheEpoch() {
    Consumer<ShardProvider.Builder> settings = b -> b.shuffle(true).seed(8).shuffleWindow(128)
        .lastBatch(LastBatch.DISCARD);
    List<Integer> rest;
    IterationState state;
    try (ShardProvider p = provider(b -> settings.accept(b.shard(2, 0)))) {
      Iterator<NamedBatch> it = p.iterator();
      ids(it.next(), 0);
      ids(it.next(), 0);
      state = p.saveState();
      rest = epoch(it, 0);
    }
    // Two batches on each of 2 trainers: 4 of the floor(300 / 32) = 9 global batches are done; one
    // trainer then reads the other 5.
    try (ShardProvider p = provider(settings)) {
      p.restoreState(state);
      List<Integer> all = epoch(p.iterator(), 0);
      assertEquals(5 * 32, all.size());
      // Trainer 0 of 2 had global batches 4, 6 and 8: batches 0, 2 and 4 of the rest.
      List<Integer> even = new ArrayList<>();
      for (int j = 0; j < 5; j += 2) {
        even.addAll(all.subList(j * 32, j * 32 + 32));
      }
      assertEquals(rest, even);
    }
  }

  @Test
  void aValueThatIsNotWholeStepsIsNamedByFileRowAndColumn() throws IOException {
    // One INT32 column of variable length; row 2 holds 6 bytes, a step and a half.
    Path bad = dir.resolve("bad");
    Files.createDirectories(bad);
    MessageType schema = MessageTypeParser.parseMessageType("message sample { required binary tokens; }");
    Path file = bad.resolve("part-00000.parquet");
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      for (int len : new int[] {4, 8, 6, 4}) {
        w.write(groups.newGroup().append("tokens", Binary.fromConstantByteArray(new byte[len])));
      }
    }
    byte[] bytes = Files.readAllBytes(file);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    Files.writeString(bad.resolve(ShardIndex.NAME), "minibatch-shards/1\ncolumn\ttokens\tDATA\tINT32\t-1\n"
        + "longest\ttokens\t2\nfile\tpart-00000.parquet\t0\t4\t" + bytes.length + "\t"
        + String.format("%08x", (int) crc.getValue()) + "\n", StandardCharsets.UTF_8);
    try (ShardProvider p = ShardProvider.builder(bad.toString()).batchSize(4).build()) {
      FileFormatException e = assertThrows(FileFormatException.class, () -> p.iterator().next());
      assertTrue(e.getMessage().contains(file.getFileName().toString()) && e.getMessage().contains("row 2 (of the file)")
          && e.getMessage().contains("column 'tokens'") && e.getMessage().contains("6 bytes, expected a multiple of 4"),
          e.getMessage());
    }
    // Without its 'longest' line the index cannot size the batches: named by line.
    Files.writeString(bad.resolve(ShardIndex.NAME), "minibatch-shards/1\ncolumn\ttokens\tDATA\tINT32\t-1\n"
        + "file\tpart-00000.parquet\t0\t4\t" + bytes.length + "\t" + String.format("%08x", (int) crc.getValue()) + "\n",
        StandardCharsets.UTF_8);
    FileFormatException e = assertThrows(FileFormatException.class, () -> ShardProvider.builder(bad.toString()).batchSize(4).build());
    assertTrue(e.getMessage().contains("no 'longest' line for column 'tokens'"), e.getMessage());
  }

  @Test
  void aFixedArrayBesideVariableOnesHasNoMask() {
    try (ShardProvider p = provider(b -> {})) {
      assertNull(p.iterator().next().mask("digit"));
    }
  }
}
