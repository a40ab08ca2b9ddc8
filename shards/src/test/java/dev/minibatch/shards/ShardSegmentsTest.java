package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Shard sets written in segments, as parallel writers do, then committed. Sample {@code i} has data
 * {@code [2]} float32 {@code {i, i + 0.5}} and label int32 {@code i}, so every row read back says
 * which sample it is.
 */
class ShardSegmentsTest {
  @TempDir Path dir;

  /** The samples {@code [from, to)}, batches of 3. */
  private static ArrayDataProvider samples(int from, int to) {
    float[][] x = new float[to - from][2];
    int[] y = new int[to - from];
    for (int i = from; i < to; i++) {
      x[i - from][0] = i;
      x[i - from][1] = i + 0.5f;
      y[i - from] = i;
    }
    return ArrayDataProvider.builder().data("x", Nd4j.create(x)).label("y", Nd4j.createFromArray(y)).batchSize(3).build();
  }

  private static ShardWriter writer() {
    return ShardWriter.builder().samplesPerFile(4).build();
  }

  /** Writes segment {@code segment} of {@code directory} from {@code [from, to)} (nothing when equal). */
  private static ShardWriter.WrittenSegment segment(ShardWriter w, String directory, int segment, int from, int to) {
    try (ShardWriter.Segment p = w.segment(directory, segment)) {
      if (to > from) {
        try (ArrayDataProvider s = samples(from, to)) {
          p.write(s);
        }
      }
      return p.finish();
    }
  }

  /** The sample ids of one epoch in order, every row checked against its id. */
  private static int[] readInOrder(String directory) {
    List<Integer> ids = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(directory).batchSize(5).build()) {
      for (NamedBatch b : p) {
        for (int r = 0; r < b.rows(); r++) {
          int id = b.get("y").getInt(r);
          assertEquals(id, b.get("x").getFloat(r, 0), 0f, "row of sample " + id);
          assertEquals(id + 0.5f, b.get("x").getFloat(r, 1), 0f, "row of sample " + id);
          ids.add(id);
        }
      }
    }
    return ids.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int[] range(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }

  @Test
  void partsWrittenAtOnceByThreeWritersReadBackInPartOrder() throws Exception {
    String set = dir.resolve("set").toString();
    ShardWriter w = writer();
    // Segment 0: samples 0..9 (files of 4, 4, 2); segment 1: none; segment 2: 10..12; segment 3: 13..21, from two
    // providers (13..16 and 17..21), so its files cut across them: 4, 4, 1.
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<ShardWriter.WrittenSegment> p3 = pool.submit(() -> {
        try (ShardWriter.Segment p = w.segment(set, 3); ArrayDataProvider a = samples(13, 17);
            ArrayDataProvider b = samples(17, 22)) {
          return p.write(a).write(b).finish();
        }
      });
      Future<ShardWriter.WrittenSegment> p2 = pool.submit(() -> segment(w, set, 2, 10, 13));
      Future<ShardWriter.WrittenSegment> p0 = pool.submit(() -> segment(w, set, 0, 0, 10));
      ShardWriter.WrittenSegment p1 = segment(w, set, 1, 0, 0);
      assertEquals(List.of(), p1.files(), "a segment of no sample writes no file");
      List<ShardWriter.WrittenSegment> segments = List.of(p0.get(), p1, p2.get(), p3.get());
      assertEquals(List.of(4, 4, 1), segments.get(3).files().stream().map(ShardWriter.WrittenFile::samples).toList());
      assertEquals("part-00003-00002.parquet", segments.get(3).files().get(2).name());

      ShardSet s = w.commit(set, segments);
      assertEquals(22, s.samples());
      assertEquals(3 + 1 + 3, s.files());
      // firsts: the running sum in segment order, then file order
      assertArrayEquals(new long[] {0, 4, 8, 10, 13, 17, 21}, s.index().firsts());
      assertEquals(List.of("part-00000-00000.parquet", "part-00000-00001.parquet", "part-00000-00002.parquet",
          "part-00002-00000.parquet", "part-00003-00000.parquet", "part-00003-00001.parquet", "part-00003-00002.parquet"),
          s.index().files().stream().map(ShardIndex.Entry::name).toList());
      assertArrayEquals(range(22), readInOrder(set));
      assertArrayEquals(range(22), readInOrder(ShardSet.open(set).location()));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void commitRefusesMissingRepeatedOrMisorderedParts() {
    String set = dir.resolve("set").toString();
    ShardWriter w = writer();
    ShardWriter.WrittenSegment p0 = segment(w, set, 0, 0, 5);
    ShardWriter.WrittenSegment p1 = segment(w, set, 1, 5, 9);
    ShardWriter.WrittenSegment p2 = segment(w, set, 2, 9, 12);

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p0, p2)));
    assertTrue(e.getMessage().contains("segment 1 is missing"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p0, p1, p1, p2)));
    assertTrue(e.getMessage().contains("segment 1 is listed twice or out of order"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p1, p0, p2)));
    assertTrue(e.getMessage().contains("segment 0 is missing"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of()));
    assertTrue(e.getMessage().contains("no sample"), e.getMessage());
    // Two segments naming one file: only a forged or mixed-up description can; the commit refuses it.
    ShardWriter.WrittenSegment copy = new ShardWriter.WrittenSegment(1, p0.columns(), p0.files(), p0.longest());
    e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p0, copy)));
    assertTrue(e.getMessage().contains("file part-00000-00000.parquet is listed twice"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("set").resolve(ShardIndex.NAME)), "a refused commit writes no index");

    assertEquals(12, w.commit(set, List.of(p0, p1, p2)).samples());
    assertArrayEquals(range(12), readInOrder(set));
    e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p0, p1, p2)));
    assertTrue(e.getMessage().contains("holds a shard set already"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> w.segment(set, 3));
    assertTrue(e.getMessage().contains("holds a shard set already"), e.getMessage());
  }

  @Test
  void commitRefusesTheFilesOfALastPartLeftOutOfTheList() throws IOException {
    String set = dir.resolve("set").toString();
    ShardWriter w = writer();
    ShardWriter.WrittenSegment p0 = segment(w, set, 0, 0, 5);
    ShardWriter.WrittenSegment p1 = segment(w, set, 1, 5, 9);
    segment(w, set, 2, 9, 14); // files part-00002-00000 (4 samples) and part-00002-00001 (1)
    // Segments 0 and 1 alone look like a set of two segments; the directory shows the third.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p0, p1)));
    assertTrue(e.getMessage().contains("[part-00002-00000.parquet, part-00002-00001.parquet]")
        && e.getMessage().contains("pass every segment's WrittenSegment") && e.getMessage().contains("delete these files"),
        e.getMessage());
    assertFalse(Files.exists(dir.resolve("set").resolve(ShardIndex.NAME)), "a refused commit writes no index");
    Files.delete(dir.resolve("set").resolve("part-00002-00000.parquet"));
    Files.delete(dir.resolve("set").resolve("part-00002-00001.parquet"));
    assertEquals(9, w.commit(set, List.of(p0, p1)).samples());
    assertArrayEquals(range(9), readInOrder(set));
  }

  @Test
  void commitRefusesPartsOfOtherArrays() {
    String set = dir.resolve("set").toString();
    ShardWriter w = writer();
    ShardWriter.WrittenSegment p0 = segment(w, set, 0, 0, 5);
    ShardWriter.WrittenSegment p1;
    try (ShardWriter.Segment p = w.segment(set, 1);
        ArrayDataProvider other = ArrayDataProvider.builder().data("x", Nd4j.create(new float[3][2]))
            .label("y", Nd4j.createFromArray(new long[3])).batchSize(3).build()) {
      p1 = p.write(other).finish();
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.commit(set, List.of(p0, p1)));
    assertTrue(e.getMessage().contains("segment 1 holds the arrays") && e.getMessage().contains("y LABEL INT64 [] N")
        && e.getMessage().contains("y LABEL INT32 [] N"), e.getMessage());
    // One segment's providers must agree too.
    try (ShardWriter.Segment p = w.segment(set, 2); ArrayDataProvider a = samples(0, 2);
        ArrayDataProvider b = ArrayDataProvider.builder().data("x", Nd4j.create(new float[3][3]))
            .label("y", Nd4j.createFromArray(new int[3])).batchSize(3).build()) {
      p.write(a);
      e = assertThrows(IllegalArgumentException.class, () -> p.write(b));
      assertTrue(e.getMessage().contains("x DATA FLOAT32 [3] NC"), e.getMessage());
    }
  }

  @Test
  void commitNamesAFileThatIsMissingOrCut() throws IOException {
    String set = dir.resolve("set").toString();
    ShardWriter w = writer();
    ShardWriter.WrittenSegment p0 = segment(w, set, 0, 0, 5);
    ShardWriter.WrittenSegment p1 = segment(w, set, 1, 5, 9);
    Path file = dir.resolve("set").resolve("part-00001-00000.parquet");
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 1));
    FileFormatException e = assertThrows(FileFormatException.class, () -> w.commit(set, List.of(p0, p1)));
    assertTrue(e.getMessage().contains("part-00001-00000.parquet") && e.getMessage().contains("the file is "
        + (bytes.length - 1) + " bytes, segment 1 wrote " + bytes.length), e.getMessage());
    Files.delete(file);
    e = assertThrows(FileFormatException.class, () -> w.commit(set, List.of(p0, p1)));
    assertTrue(e.getMessage().contains("part-00001-00000.parquet") && e.getMessage().contains("missing"), e.getMessage());
  }

  @Test
  void aPartClosedUnfinishedLeavesNoFileAndARetryReplacesItsFiles() throws IOException {
    String set = dir.resolve("set").toString();
    ShardWriter w = writer();
    try (ShardWriter.Segment p = w.segment(set, 0); ArrayDataProvider s = samples(0, 9)) {
      p.write(s); // two whole files and one open; the task "fails" here
    }
    try (var files = Files.list(dir.resolve("set"))) {
      assertEquals(List.of(), files.toList(), "an unfinished segment deletes what it wrote");
    }
    // A first attempt that finished, then a retry of the same segment: the retry's files replace the first's.
    segment(w, set, 0, 0, 9);
    ShardWriter.WrittenSegment retry = segment(w, set, 0, 0, 9);
    ShardWriter.WrittenSegment p1 = segment(w, set, 1, 9, 11);
    assertEquals(11, w.commit(set, List.of(retry, p1)).samples());
    assertArrayEquals(range(11), readInOrder(set));
    try (ShardWriter.Segment p = w.segment(dir.resolve("other").toString(), 0); ArrayDataProvider s = samples(0, 2)) {
      p.finish();
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.write(s));
      assertTrue(e.getMessage().contains("finished"), e.getMessage());
    }
  }

  /**
   * A disk that fills up in the middle of the second file, which is written behind the rows on the
   * writer's own thread: the failure is the writer's, as the file system gave it, naming the file;
   * the files written are deleted, and no thread is left behind. The same for a segment, whose
   * failure may come from {@code write} or from {@code finish}.
   */
  @Test
  void aDiskThatFillsUpFailsTheWriteNamingTheFileAndLeavesNothing() throws IOException {
    Configuration conf = FullDiskFileSystem.conf("00001", 200);
    ShardWriter w = ShardWriter.builder().samplesPerFile(4).configuration(conf).build();
    Path full = dir.resolve("full");
    try (ArrayDataProvider s = samples(0, 12)) {
      java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
          () -> w.write(s, FullDiskFileSystem.SCHEME + "://" + full));
      assertTrue(e.getMessage().contains("part-00001.parquet") && e.getMessage().contains("No space left on device"),
          e.getMessage());
    }
    Path segmented = dir.resolve("full-segment");
    try (ArrayDataProvider s = samples(0, 12)) {
      java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, () -> {
        try (ShardWriter.Segment p = w.segment(FullDiskFileSystem.SCHEME + "://" + segmented, 3)) {
          p.write(s).finish();
        }
      });
      assertTrue(e.getMessage().contains("part-00003-00001.parquet") && e.getMessage().contains("No space left"),
          e.getMessage());
    }
    for (Path d : List.of(full, segmented)) {
      try (var files = Files.list(d)) {
        assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".parquet")).toList(),
            "a failed write deletes its files");
      }
    }
    assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().contains("shard-write")),
        "a thread writing shard files is left");
    assertEquals(0, FullDiskFileSystem.OPEN.get(), "files left open");
  }

  /**
   * A source that fails at its fourth batch of 3, after two whole files of 4, whose ends may still be queued behind the rows when
   * it does: the segment, given up, closes every file it opened and deletes them, and refuses to be
   * written again.
   */
  @Test
  void aSegmentGivenUpClosesEveryFileItOpened() throws IOException {
    ShardWriter w = ShardWriter.builder().samplesPerFile(4).configuration(FullDiskFileSystem.conf("none", 0)).build();
    Path given = dir.resolve("given-up");
    try (ArrayDataProvider s = samples(0, 12);
        ShardWriter.Segment p = w.segment(FullDiskFileSystem.SCHEME + "://" + given, 0)) {
      BatchProvider<NamedBatch> failing = failingAfter(s, 3);
      RuntimeException e = assertThrows(RuntimeException.class, () -> p.write(failing));
      assertTrue(e.getMessage().contains("the source failed"), e.getMessage());
      IllegalStateException again = assertThrows(IllegalStateException.class, () -> p.write(s));
      assertTrue(again.getMessage().contains("failed"), again.getMessage());
    }
    assertEquals(0, FullDiskFileSystem.OPEN.get(), "files left open");
    try (var files = Files.list(given)) {
      assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".parquet")).toList());
    }
  }

  /** {@code source}, whose epochs fail once {@code batches} batches were given. */
  private static BatchProvider<NamedBatch> failingAfter(ArrayDataProvider source, int batches) {
    return new BatchProvider<>() {
      @Override
      public int batchSize() {
        return source.batchSize();
      }

      @Override
      public List<dev.minibatch.DataDesc> provideData() {
        return source.provideData();
      }

      @Override
      public List<dev.minibatch.DataDesc> provideLabel() {
        return source.provideLabel();
      }

      @Override
      public BatchIterator<NamedBatch> iterator() {
        BatchIterator<NamedBatch> it = source.iterator();
        return new BatchIterator<>() {
          private int given;

          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public NamedBatch next() {
            if (given++ == batches) {
              throw new IllegalStateException("the source failed");
            }
            return it.next();
          }

          @Override
          public void close() {
            it.close();
          }
        };
      }

      @Override
      public void close() {}
    };
  }

  /** A writer's Hadoop configuration travels with it: here a umask that leaves the files to their owner. */
  @Test
  void localWritesCountInHadoopsFileSystemStatistics() {
    // Spark's executor metrics (filesystem.file.write_bytes) read these; every file written counts.
    @SuppressWarnings("deprecation")
    org.apache.hadoop.fs.FileSystem.Statistics stats = org.apache.hadoop.fs.FileSystem.getStatistics("file",
        org.apache.hadoop.fs.RawLocalFileSystem.class);
    long before = stats.getBytesWritten();
    String set = dir.resolve("counted").toString();
    ShardWriter.WrittenSegment written = segment(writer(), set, 0, 0, 10);
    long files = written.files().stream().mapToLong(ShardWriter.WrittenFile::bytes).sum();
    assertEquals(3, written.files().size(), "10 samples, 4 per file");
    long counted = stats.getBytesWritten() - before;
    assertTrue(counted >= files, counted + " bytes counted, the segment's files hold " + files);
  }

  @Test
  void aSerializedWriterKeepsItsSettingsAndConfiguration() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.permissions.umask-mode", "077");
    ShardWriter sent = ShardWriter.builder().samplesPerFile(2).configuration(conf).build();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(sent);
      out.writeObject(writer());
    }
    ShardWriter received;
    ShardWriter plain;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      received = (ShardWriter) in.readObject();
      plain = (ShardWriter) in.readObject();
    }
    String set = dir.resolve("set").toString();
    ShardWriter.WrittenSegment p0 = segment(received, set, 0, 0, 5);
    assertEquals(List.of(2, 2, 1), p0.files().stream().map(ShardWriter.WrittenFile::samples).toList());
    Set<PosixFilePermission> owner = Files.getPosixFilePermissions(dir.resolve("set").resolve("part-00000-00000.parquet"));
    assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE), owner);
    ShardWriter.WrittenSegment p1 = segment(plain, set, 1, 5, 9);
    assertEquals(List.of(4), p1.files().stream().map(ShardWriter.WrittenFile::samples).toList());
    assertTrue(Files.getPosixFilePermissions(dir.resolve("set").resolve("part-00001-00000.parquet"))
        .contains(PosixFilePermission.GROUP_READ), "the default umask, 022");
    assertArrayEquals(range(9), readInOrder(received.commit(set, List.of(p0, p1)).location()));
  }
}
