package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node-local disk cache, in one JVM, on a local file system counted by Hadoop's statistics
 * ({@link CountingFileSystem}): 1 000 samples ({@link IdSamples}: each row says which sample it is)
 * in 10 files of 100, read with a window of one file and the default in-memory cache (4 files),
 * so without the disk cache every epoch loads most files from the set again. The expected bytes
 * are the files' sizes on the disk, read with {@link Files#size}.
 */
class DiskCacheTest {
  private static final long MANY = 1L << 40;
  @TempDir Path dir;
  private String set;
  private Path cache;
  private long[] sizes;
  private long total;

  @BeforeEach
  void write() throws IOException {
    set = CountingFileSystem.SCHEME + "://" + IdSamples.write(dir, "set", 0, 1000, 100);
    cache = dir.resolve("cache");
    sizes = new long[10];
    for (int f = 0; f < 10; f++) {
      sizes[f] = Files.size(part(f));
      total += sizes[f];
    }
  }

  private Path part(int f) {
    return dir.resolve("set").resolve(String.format("part-%05d.parquet", f));
  }

  private ShardProvider.Builder reader(long maxBytes) {
    return ShardProvider.builder(set).configuration(CountingFileSystem.conf()).batchSize(50).shuffle(true).seed(5)
        .shuffleWindow(100).diskCache(cache, maxBytes);
  }

  /** One epoch, each sample checked against its row and seen once; returns its remote bytes. */
  private static long epoch(ShardProvider p) {
    long before = p.remoteBytes();
    Set<Integer> seen = new HashSet<>();
    for (NamedBatch b : p) {
      for (int r = 0; r < b.countSamples(); r++) {
        int id = (int) b.get("x").getFloat(r, 0);
        assertEquals(id, b.get("x").getFloat(r, 1), 0f);
        assertEquals(id % 7, b.get("y").getInt(r));
        assertTrue(seen.add(id), "sample " + id + " twice");
      }
    }
    assertEquals(1000, seen.size());
    return p.remoteBytes() - before;
  }

  /** The copies in the cache directory, by the shard file's name they end with. */
  private Set<String> copies() throws IOException {
    try (Stream<Path> files = Files.list(cache)) {
      return files.filter(Files::isRegularFile).map(f -> f.getFileName().toString())
          .map(n -> n.substring(n.indexOf('-') + 1)).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private long cachedBytes() throws IOException {
    try (Stream<Path> files = Files.list(cache)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  private Path copyOf(int f) throws IOException {
    String name = String.format("-part-%05d.parquet", f);
    try (Stream<Path> files = Files.list(cache)) {
      return files.filter(p -> p.getFileName().toString().endsWith(name)).findFirst().orElseThrow();
    }
  }

  @Test
  void aFileIsFetchedOnceThenEpochsAndRestartsReadNoRemoteByte() throws IOException {
    try (ShardProvider p = reader(MANY).build()) {
      assertEquals(total, epoch(p), "the first epoch fetches every file once");
      int loads = p.fileLoads();
      long counted = CountingFileSystem.bytesRead();
      assertEquals(0, epoch(p), "the second epoch reads the disk cache");
      assertEquals(counted, CountingFileSystem.bytesRead(), "Hadoop's statistics: no byte from the set");
      assertTrue(p.fileLoads() - loads >= 6, "the memory cache of 4 files reloads most files: " + (p.fileLoads() - loads));
    }
    assertEquals(10, copies().size());
    assertEquals(total, cachedBytes());
    // A new provider (a restarted trainer) finds the copies: only the index is read from the set.
    long counted = CountingFileSystem.bytesRead();
    try (ShardProvider p = reader(MANY).build()) {
      assertEquals(0, epoch(p));
    }
    assertEquals(Files.size(dir.resolve("set").resolve("shards.index")), CountingFileSystem.bytesRead() - counted);
  }

  @Test
  void eachEpochsStatsCountTheBytesFetchedFromTheSet() throws InterruptedException {
    try (ShardProvider p = reader(MANY).build()) {
      // With the disk cache: the set's bytes in the first epoch, none in the second.
      assertEquals(List.of(total, 0L), List.of(statsBytes(p), statsBytes(p)));
    }
    try (ShardProvider p = ShardProvider.builder(set).configuration(CountingFileSystem.conf()).batchSize(50)
        .shuffle(true).seed(5).shuffleWindow(100).build()) {
      long opened = p.remoteBytes();
      long first = statsBytes(p);
      long second = statsBytes(p);
      assertTrue(ReadAheadThreads.awaitNone().isEmpty());
      // Every byte fetched is in the stats of the epoch that fetched it, files read ahead between two
      // epochs in the next one's; after the last, the next epoch's first files (read-ahead 2) remain.
      long left = p.remoteBytes() - opened - first - second;
      assertTrue(left >= 0 && left <= twoLargest(), "fetched beyond the two epochs' stats: " + left);
      assertTrue(second >= 6 * sizes[0], "without it, most files again: " + second);
    }
  }

  /** One epoch's bytes read from storage, as its stats give them on the read-ahead stage. */
  private static long statsBytes(ShardProvider p) {
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      PipelineStats.StageStats readAhead = PipelineStats.of(it).stages().stream()
          .filter(s -> s.name().equals("shard-read-ahead")).findFirst().orElseThrow();
      return readAhead.bytes();
    }
  }

  @Test
  void withoutTheDiskCacheEveryEpochReadsTheSet() {
    try (ShardProvider p = ShardProvider.builder(set).configuration(CountingFileSystem.conf()).batchSize(50)
        .shuffle(true).seed(5).shuffleWindow(100).build()) {
      // Every file once, and by the epoch's end perhaps the next epoch's first two, read ahead.
      long first = epoch(p);
      assertTrue(first >= total && first <= total + twoLargest(), "the first epoch fetched " + first);
      assertTrue(epoch(p) >= 6 * sizes[0], "the memory cache alone reloads most files from the set");
    }
  }

  /** The bytes of the set's two largest files: the most read-ahead fetches for the next epoch. */
  private long twoLargest() {
    return Arrays.stream(sizes).sorted().skip(sizes.length - 2).sum();
  }

  @Test
  void aCopyOfAnotherLengthIsFetchedAgain() throws IOException {
    try (ShardProvider p = reader(MANY).build()) {
      epoch(p);
    }
    try (RandomAccessFile cut = new RandomAccessFile(copyOf(3).toFile(), "rw")) {
      cut.setLength(sizes[3] / 2);
    }
    try (ShardProvider p = reader(MANY).build()) {
      assertEquals(sizes[3], epoch(p));
    }
    assertEquals(sizes[3], Files.size(copyOf(3)));
  }

  @Test
  void aCopyDamagedSoThatItDoesNotDecodeIsFetchedAgain() throws IOException {
    try (ShardProvider p = reader(MANY).build()) {
      epoch(p);
    }
    // The footer's length and magic, the file's last 8 bytes: the copy keeps its length, but is no Parquet file.
    try (RandomAccessFile damage = new RandomAccessFile(copyOf(6).toFile(), "rw")) {
      damage.seek(sizes[6] - 8);
      damage.write(new byte[8]);
    }
    try (ShardProvider p = reader(MANY).build()) {
      assertEquals(sizes[6], epoch(p));
    }
  }

  @Test
  void aFileThatFailsItsChecksumOnArrivalIsFetchedTwiceThenNamed() throws IOException {
    try (RandomAccessFile flip = new RandomAccessFile(part(2).toFile(), "rw")) {
      flip.seek(sizes[2] / 2);
      int b = flip.read();
      flip.seek(sizes[2] / 2);
      flip.write(b ^ 0x10);
    }
    // In file order, one file at a time: files 0 and 1 load, then 2 fails.
    try (ShardProvider p = ShardProvider.builder(set).configuration(CountingFileSystem.conf()).batchSize(50)
        .readAhead(0).diskCache(cache, MANY).build()) {
      FileFormatException e = assertThrows(FileFormatException.class, () -> epoch(p));
      assertTrue(e.getMessage().startsWith(set + "/part-00002.parquet: its CRC-32C is "), e.getMessage());
      assertTrue(e.getMessage().contains("fetched twice for the disk cache"), e.getMessage());
      // The engine writes a failing batch again row by row to name its sample (BatchWriter), so the load of
      // file 2 runs twice, each fetching it twice.
      assertEquals(sizes[0] + sizes[1] + 2 * 2 * sizes[2], p.remoteBytes());
    }
    assertEquals(Set.of("part-00000.parquet", "part-00001.parquet"), copies());
  }

  @Test
  void theLimitHoldsAndTheLeastRecentlyUsedGo() throws IOException {
    long three = sizes[7] + sizes[8] + sizes[9];
    // In file order: the copies are made 0, 1, …, 9, each evicting the oldest once three are held.
    // One thread loads the files (no read-ahead): with a read-ahead thread racing the consumer for a
    // file, the one that waited reads the fresh copy and so marks it used after a later file's
    // arrival, and least-recently-used then rightly keeps it (seen once under load).
    try (ShardProvider p = ShardProvider.builder(set).configuration(CountingFileSystem.conf()).batchSize(50)
        .readAhead(0).diskCache(cache, three).build()) {
      long before = p.remoteBytes();
      int rows = 0;
      for (NamedBatch b : p) {
        for (int r = 0; r < b.countSamples(); r++) {
          assertEquals(rows++, (int) b.get("x").getFloat(r, 0));
        }
        assertTrue(cachedBytes() <= three, cachedBytes() + " bytes cached, the limit is " + three);
      }
      assertEquals(1000, rows);
      assertEquals(total, p.remoteBytes() - before);
    }
    assertEquals(Set.of("part-00007.parquet", "part-00008.parquet", "part-00009.parquet"), copies());
  }

  @Test
  void aLimitBelowTheFilesReadAtOnceIsRefused() {
    long largest = java.util.Arrays.stream(sizes).max().orElseThrow();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader(largest - 1).build());
    assertTrue(e.getMessage().contains("the smallest limit that works is " + largest + " bytes"), e.getMessage());
    // A window of 150 positions over files of 100 spans up to 3 files: the three largest must fit.
    long[] sorted = sizes.clone();
    java.util.Arrays.sort(sorted);
    long three = sorted[9] + sorted[8] + sorted[7];
    e = assertThrows(IllegalArgumentException.class, () -> reader(three - 1).shuffleWindow(150).build());
    assertTrue(e.getMessage().contains("a shuffle window reads 3 files at once"), e.getMessage());
    assertTrue(e.getMessage().contains("the smallest limit that works is " + three + " bytes"), e.getMessage());
    reader(three).shuffleWindow(150).build().close();
  }

  @Test
  void twoProvidersOfOneProcessFetchEachFileOnce() throws Exception {
    List<CompletableFuture<Long>> trainers = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      int part = p;
      trainers.add(CompletableFuture.supplyAsync(() -> {
        try (ShardProvider t = reader(MANY).shard(2, part).build()) {
          long before = t.remoteBytes();
          for (NamedBatch b : t) {
            b.countSamples();
          }
          return t.remoteBytes() - before;
        }
      }));
    }
    long sum = 0;
    for (CompletableFuture<Long> t : trainers) {
      sum += t.get();
    }
    assertEquals(total, sum);
    assertEquals(10, copies().size());
  }

  @Test
  void aTemporaryFileLeftByAStoppedProcessIsDeleted() throws IOException {
    Files.createDirectories(cache);
    Path left = cache.resolve("0123-part-00000.parquet.5b7c.tmp");
    Files.write(left, new byte[100]);
    try (ShardProvider p = reader(MANY).build()) {
      epoch(p);
    }
    assertTrue(!Files.exists(left));
  }
}
