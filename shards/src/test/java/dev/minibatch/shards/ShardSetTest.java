package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.io.RandomAccessFile;
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
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A shard set written from known samples and read back: sample {@code i} has data {@code [3, 4]}
 * float32 with element {@code k} = {@code i * 100 + k} and label int32 {@code i % 10}, so every row
 * says which sample it is. 1 000 samples in files of 128: 8 files, the last of 104.
 */
class ShardSetTest {
  private static final int N = 1000;
  private static final int PER_FILE = 128;

  @TempDir static Path dir;
  private static String set;

  @BeforeAll
  static void write() {
    set = dir.resolve("digits").toString();
    float[][][] data = new float[N][3][4];
    int[] labels = new int[N];
    for (int i = 0; i < N; i++) {
      for (int k = 0; k < 12; k++) {
        data[i][k / 4][k % 4] = i * 100 + k;
      }
      labels[i] = i % 10;
    }
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("image", Nd4j.create(data))
        .label("digit", Nd4j.createFromArray(labels)).batchSize(64).build()) {
      ShardSet written = ShardWriter.builder().samplesPerFile(PER_FILE).build().write(source, set);
      assertEquals(N, written.samples());
    }
  }

  private static ShardProvider provider(Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder b = ShardProvider.builder(set).batchSize(50);
    settings.accept(b);
    return b.build();
  }

  /** The sample ids of one epoch's batches, each row checked against its sample's known values. */
  private static List<int[]> epoch(ShardProvider p) {
    List<int[]> out = new ArrayList<>();
    for (NamedBatch b : p) {
      out.add(ids(b));
    }
    return out;
  }

  private static int[] ids(NamedBatch b) {
    INDArray x = b.get("image");
    INDArray y = b.get("digit");
    int[] ids = new int[b.rows()];
    for (int r = 0; r < b.rows(); r++) {
      int id = (int) (x.getFloat(r, 0, 0) / 100);
      for (int k = 0; k < 12; k++) {
        assertEquals(id * 100 + k, x.getFloat(r, k / 4, k % 4), "row " + r + " element " + k);
      }
      assertEquals(id % 10, y.getInt(r), "row " + r + ": label");
      ids[r] = id;
    }
    return ids;
  }

  private static int[] flat(List<int[]> batches) {
    return batches.stream().flatMapToInt(java.util.Arrays::stream).toArray();
  }

  @Test
  void theIndexDescribesTheFilesAndTheSample() {
    ShardSet s = ShardSet.open(set);
    assertEquals(N, s.samples());
    assertEquals(8, s.files());
    assertEquals("image", s.data().get(0).name());
    assertEquals(DType.FLOAT32, s.data().get(0).dtype());
    assertArrayEquals(new long[] {1, 3, 4}, s.data().get(0).shape().toLongArray());
    assertEquals("digit", s.label().get(0).name());
    ShardIndex index = s.index();
    assertEquals(7 * 128, index.files().get(7).first());
    assertEquals(104, index.files().get(7).samples());
  }

  @Test
  void inOrderTheBatchesAreTheSourceSamples() {
    try (ShardProvider p = provider(b -> {})) {
      List<int[]> batches = epoch(p);
      assertEquals(20, batches.size());
      int[] all = flat(batches);
      for (int i = 0; i < N; i++) {
        assertEquals(i, all[i]);
      }
      assertEquals(8, p.fileLoads(), "8 files, each read once");
      epoch(p);
      assertEquals(8, p.fileLoads(), "a second epoch reads from the cache (8 files fit)");
    }
  }

  @Test
  void aParquetReaderOfItsOwnSeesLittleEndianArraysAndTypedScalars() throws IOException {
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(Path.of(set, "part-00001.parquet").toUri());
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      PrimitiveType image = r.getFooter().getFileMetaData().getSchema().getType("image").asPrimitiveType();
      assertEquals(PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, image.getPrimitiveTypeName());
      assertEquals(48, image.getTypeLength());
      assertEquals("image DATA FLOAT32 [3,4] NHW\ndigit LABEL INT32 [] N\n",
          r.getFooter().getFileMetaData().getKeyValueMetaData().get("minibatch.columns"));
      var schema = r.getFooter().getFileMetaData().getSchema();
      // digit, an int32 scalar, is an INT32 column: its plain pages are its little-endian bytes too.
      assertEquals(PrimitiveType.PrimitiveTypeName.INT32, schema.getType("digit").asPrimitiveType().getPrimitiveTypeName());
      int[] rowBytes = {48, 4};
      List<String> names = List.of("image", "digit");
      for (int c = 0; c < 2; c++) {
        assertTrue(ShardFile.plain(r.getFooter().getBlocks().get(0),
            schema.getColumnDescription(new String[] {names.get(c)}), rowBytes[c]), names.get(c)
            + " decodes with one copy per page");
      }
    }
    try (ParquetReader<Group> rows = ParquetReader.builder(new GroupReadSupport(), file).withConf(conf).build()) {
      Group g = rows.read();
      ByteBuffer image = ByteBuffer.wrap(g.getBinary("image", 0).getBytes()).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(128 * 100 + 5, image.getFloat(5 * 4), 0f, "sample 128, element 5");
      assertEquals(128 % 10, g.getInteger("digit", 0), "sample 128's label, a number to any Parquet reader");
    }
  }

  @Test
  void shuffledEpochsPermuteFilesAndMixWithinWindows() {
    try (ShardProvider p = provider(b -> b.shuffle(true).seed(5).shuffleWindow(2 * PER_FILE))) {
      int[] first = flat(epoch(p));
      int[] second = flat(epoch(p));
      for (int[] e : List.of(first, second)) {
        Set<Integer> seen = new HashSet<>();
        for (int id : e) {
          assertTrue(seen.add(id), "sample " + id + " twice");
        }
        assertEquals(N, seen.size());
        // A window of 256 positions of the file order spans at most 3 files (files of 128 and one of
        // 104), and its samples are mixed: not in file order.
        boolean mixed = false;
        for (int w = 0; w * 256 < N; w++) {
          Set<Integer> files = new HashSet<>();
          for (int i = w * 256; i < Math.min(N, (w + 1) * 256); i++) {
            files.add(e[i] / PER_FILE);
            mixed |= i > w * 256 && e[i] != e[i - 1] + 1;
          }
          assertTrue(files.size() <= 3, "window " + w + " draws from files " + files);
        }
        assertTrue(mixed);
      }
      assertFalse(java.util.Arrays.equals(first, second), "a new order every epoch");
      int[] inOrder = new int[N];
      for (int i = 0; i < N; i++) {
        inOrder[i] = i;
      }
      assertFalse(java.util.Arrays.equals(first, inOrder));
    }
    try (ShardProvider again = provider(b -> b.shuffle(true).seed(5).shuffleWindow(2 * PER_FILE).readers(2));
        ShardProvider once = provider(b -> b.shuffle(true).seed(5).shuffleWindow(2 * PER_FILE))) {
      assertArrayEquals(flat(epoch(once)), flat(epoch(again)), "the same order on 2 reader threads");
    }
  }

  @Test
  void theSavedStateSaysWhetherTheProviderShuffles() {
    for (boolean shuffle : new boolean[] {true, false}) {
      String state;
      try (ShardProvider p = provider(b -> b.shuffle(shuffle).seed(4))) {
        p.iterator().next();
        state = p.saveState().settings();
        assertTrue(state.contains(",shuffle=" + shuffle + ","), state);
        assertFalse(state.contains(",shuffle=" + !shuffle + ","), state);
      }
      try (ShardProvider p = provider(b -> b.shuffle(shuffle).seed(4))) {
        p.restoreState(IterationState.decode(stateOf(shuffle)));
      }
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
        try (ShardProvider p = provider(b -> b.shuffle(!shuffle).seed(4))) {
          p.restoreState(IterationState.decode(stateOf(shuffle)));
        }
      });
      assertTrue(e.getMessage().contains("cannot restore"), e.getMessage());
    }
  }

  /** The encoded state after one batch of a provider with {@code shuffle}. */
  private static String stateOf(boolean shuffle) {
    try (ShardProvider p = provider(b -> b.shuffle(shuffle).seed(4))) {
      p.iterator().next();
      return p.saveState().encode();
    }
  }

  @Test
  void fourTrainersSaveAndThreeResumeWithEveryRemainingSampleOnce() {
    Consumer<ShardProvider.Builder> settings = b -> b.shuffle(true).seed(9).shuffleWindow(300);
    List<Integer> consumed = new ArrayList<>();
    String state = null;
    for (int t = 0; t < 4; t++) {
      int trainer = t;
      try (ShardProvider p = provider(b -> settings.accept(b.shard(4, trainer)))) {
        Iterator<NamedBatch> it = p.iterator();
        for (int step = 0; step < 3; step++) {
          for (int id : ids(it.next())) {
            consumed.add(id);
          }
        }
        String s = p.saveState().encode();
        if (state != null) {
          assertEquals(state, s);
        }
        state = s;
      }
    }
    assertEquals(600, consumed.size());
    List<Integer> rest = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int trainer = t;
      try (ShardProvider p = provider(b -> settings.accept(b.shard(3, trainer)))) {
        p.restoreState(IterationState.decode(state));
        for (int id : flat(epoch(p))) {
          rest.add(id);
        }
      }
    }
    Set<Integer> all = new HashSet<>(consumed);
    for (int id : rest) {
      assertTrue(all.add(id), "sample " + id + " twice");
    }
    assertEquals(N, all.size(), "every sample of the epoch once");
  }

  @Test
  void aCorruptMissingOrCutFileIsNamed() throws IOException {
    Path copy = dir.resolve("broken");
    Files.createDirectories(copy);
    try (var files = Files.list(Path.of(set))) {
      for (Path f : files.toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    try (RandomAccessFile f = new RandomAccessFile(copy.resolve("part-00003.parquet").toFile(), "rw")) {
      f.seek(f.length() / 3);
      int b = f.read();
      f.seek(f.length() / 3);
      f.write(b ^ 0x5a);
    }
    FileFormatException e = assertThrows(FileFormatException.class, () -> {
      try (ShardProvider p = ShardProvider.builder(copy.toString()).batchSize(50).build()) {
        epoch(p);
      }
    });
    assertTrue(e.getMessage().contains("part-00003.parquet") && e.getMessage().contains("CRC-32C"), e.getMessage());
    assertTrue(e.getMessage().contains("rows 384 to 511") || e.getMessage().contains("changed or corrupted"),
        e.getMessage());

    Files.delete(copy.resolve("part-00003.parquet"));
    e = assertThrows(FileFormatException.class, () -> {
      try (ShardProvider p = ShardProvider.builder(copy.toString()).batchSize(50).build()) {
        epoch(p);
      }
    });
    assertTrue(e.getMessage().contains("part-00003.parquet") && e.getMessage().contains("missing"), e.getMessage());

    byte[] whole = Files.readAllBytes(Path.of(set, "part-00003.parquet"));
    Files.write(copy.resolve("part-00003.parquet"), java.util.Arrays.copyOf(whole, whole.length - 10));
    e = assertThrows(FileFormatException.class, () -> {
      try (ShardProvider p = ShardProvider.builder(copy.toString()).batchSize(50).build()) {
        epoch(p);
      }
    });
    assertTrue(e.getMessage().contains("part-00003.parquet") && e.getMessage().contains("the index says " + whole.length),
        e.getMessage());
  }

  @Test
  void aMalformedIndexIsNamedWithItsLine() throws IOException {
    Path copy = dir.resolve("badindex");
    Files.createDirectories(copy);
    String index = Files.readString(Path.of(set, ShardIndex.NAME), StandardCharsets.UTF_8);
    Files.writeString(copy.resolve(ShardIndex.NAME), index.replaceFirst("\t128\t", "\t127\t"));
    FileFormatException e = assertThrows(FileFormatException.class, () -> ShardSet.open(copy.toString()));
    assertTrue(e.getMessage().contains(ShardIndex.NAME) && e.getMessage().contains("line 5")
        && e.getMessage().contains("starts at sample 128, expected 127"), e.getMessage());
    // A column is its SampleSchema field's text: the column within the line is named too.
    Files.writeString(copy.resolve(ShardIndex.NAME), index.replace("FLOAT32 [3,4] NHW\n", "FLOAT32 [3,4,] NHW\n"));
    e = assertThrows(FileFormatException.class, () -> ShardSet.open(copy.toString()));
    assertTrue(e.getMessage().contains(ShardIndex.NAME) && e.getMessage().endsWith(": line 2, column 32: expected a dim"
        + " (a positive integer, or VARIABLE for the variable axis), found ''"), e.getMessage());
    e = assertThrows(FileFormatException.class, () -> ShardSet.open(dir.resolve("nothing").toString()));
    assertTrue(e.getMessage().contains("not a shard set"), e.getMessage());
    // Issue 41 (ShardFuzzTest): a ':' in a file name reached Hadoop's Path as a URI scheme and escaped
    // as its IllegalArgumentException when the file was read; now the index's line is named.
    Files.writeString(copy.resolve(ShardIndex.NAME), index.replace("part-00001.parquet", "part-000:1.parquet"));
    e = assertThrows(FileFormatException.class, () -> ShardSet.open(copy.toString()));
    assertTrue(e.getMessage().contains(ShardIndex.NAME + ": line 5: expected 'file<TAB>name") && e.getMessage().contains(
        "with a plain file name (no '/', '\\', ':' or control character; not '.' or '..'), found 'file\tpart-000:1.parquet"
        + "\t128\t128\t"), e.getMessage());
  }

  @Test
  void aSmallCacheReloadsFilesAndNoThreadOutlivesTheProvider() {
    try (ShardProvider p = provider(b -> b.cacheFiles(2).readAhead(1))) {
      epoch(p);
      epoch(p);
      // 2 of 8 files fit: the second epoch reads again what was dropped (all but what is still held
      // or loading when it starts); each file at most once per epoch, and at its end the next epoch's
      // first file (read-ahead 1).
      assertTrue(p.fileLoads() > 8 + 4 && p.fileLoads() <= 16 + 1, p.fileLoads() + " loads");
    }
    assertFalse(Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("minibatch-shard")), "a shard thread still runs");
  }

  @Test
  void compressedFilesReadTheSame() {
    for (ShardWriter.Compression c : List.of(ShardWriter.Compression.ZSTD, ShardWriter.Compression.SNAPPY)) {
      String copy = dir.resolve("compressed-" + c).toString();
      try (ShardProvider source = provider(b -> {})) {
        ShardWriter.builder().samplesPerFile(300).compression(c).build().write(source, copy);
      }
      try (ShardProvider p = ShardProvider.builder(copy).batchSize(64).build()) {
        int[] all = flat(epoch(p));
        assertEquals(N, all.length);
        for (int i = 0; i < N; i++) {
          assertEquals(i, all[i], c + " row " + i);
        }
      }
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
        try (ShardProvider source = provider(b -> {})) {
          ShardWriter.builder().build().write(source, copy);
        }
      });
      assertTrue(e.getMessage().contains("holds a shard set already"), e.getMessage());
    }
  }

  @Test
  void theLastBatchPolicyAppliesToTheGlobalOrder() {
    try (ShardProvider p = provider(b -> b.batchSize(300).lastBatch(LastBatch.PAD_WRAP))) {
      List<int[]> batches = epoch(p);
      assertEquals(4, batches.size());
      assertArrayEquals(new int[] {900, 901}, java.util.Arrays.copyOf(batches.get(3), 2));
      assertEquals(0, batches.get(3)[100], "padding wraps to the epoch's first sample");
    }
    assertNotEquals(0, N % 300);
  }
}
