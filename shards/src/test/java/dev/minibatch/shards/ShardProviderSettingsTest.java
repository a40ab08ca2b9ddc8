package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.pipeline.PipelineStats;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The settings docs/shards.md gives {@link ShardProvider} beyond what the provider contract runs
 * ({@code ShardProviderContractTest}): shards elastic by default (with {@code evenShards}, and
 * resumed under another part count), contiguous with {@code elasticShards(false)} (resumed only
 * under the same count), and {@code badSamples} over a corrupt file. Sets of the samples {@code
 * 0..9} of {@link IndexedSamples} in files of 3 ({@code part-00000} holds 0, 1, 2; {@code
 * part-00001} 3, 4, 5; {@code part-00002} 6, 7, 8; {@code part-00003} 9); the expected batches are
 * worked out by hand from the documented rules.
 */
class ShardProviderSettingsTest {
  @TempDir static Path dir;
  private static String good;
  private static String corrupt;

  @BeforeAll
  static void write() throws IOException {
    good = write("good");
    corrupt = write("corrupt");
    // The middle byte of part-00001 changed, its length kept: its CRC-32C no longer matches the index.
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("corrupt").resolve("part-00001.parquet").toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0xFF);
    }
  }

  private static String write(String name) {
    String location = dir.resolve(name).toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder()
        .data("data", Nd4j.create(IndexedSamples.data(0, 10)))
        .label("softmax_label", Nd4j.createFromArray(IndexedSamples.labels(0, 10)))
        .batchSize(4).build()) {
      assertEquals(4, ShardWriter.builder().samplesPerFile(3).build().write(source, location).files());
    }
    return location;
  }

  private static ShardProvider provider(String set, Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder b = ShardProvider.builder(set).batchSize(3);
    settings.accept(b);
    return b.build();
  }

  /** The sample indices of the rest of an epoch's batches, every row checked against its index. */
  private static List<List<Long>> rest(BatchIterator<NamedBatch> it) {
    List<List<Long>> out = new ArrayList<>();
    while (it.hasNext()) {
      NamedBatch b = it.next();
      List<Long> ids = new ArrayList<>();
      for (int r = 0; r < b.rows(); r++) {
        long i = b.sampleIndex(r);
        assertTrue(IndexedSamples.holds(b, r, i), "row " + r + " of a batch names sample " + i);
        ids.add(i);
      }
      out.add(ids);
    }
    return out;
  }

  private static List<List<Long>> epoch(ShardProvider p) {
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      return rest(it);
    }
  }

  private static List<Long> ids(long... ids) {
    List<Long> out = new ArrayList<>();
    for (long i : ids) {
      out.add(i);
    }
    return out;
  }

  @Test
  void shardsAreElasticByDefault() {
    // Global batches [0,1,2] [3,4,5] [6,7,8] [9]; part p of 3 gets batches p, p + 3.
    List<List<List<Long>>> expected = List.of(List.of(ids(0, 1, 2), ids(9)), List.of(ids(3, 4, 5)), List.of(ids(6, 7, 8)));
    for (int p = 0; p < 3; p++) {
      int part = p;
      try (ShardProvider provider = provider(good, b -> b.shard(3, part))) {
        assertEquals(expected.get(p), epoch(provider), "part " + p + ", twice");
        assertEquals(expected.get(p), epoch(provider), "part " + p + ", its second epoch");
      }
    }
  }

  @Test
  void evenElasticShardsTopTheLastRoundUpWithTheEpochsFirstBatches() {
    // 4 global batches, 3 parts: 2 rounds each; global batch j >= 4 is batch j - 4.
    List<List<List<Long>>> expected = List.of(List.of(ids(0, 1, 2), ids(9)), List.of(ids(3, 4, 5), ids(0, 1, 2)),
        List.of(ids(6, 7, 8), ids(3, 4, 5)));
    for (int p = 0; p < 3; p++) {
      int part = p;
      try (ShardProvider provider = provider(good, b -> b.shard(3, part).evenShards(true))) {
        assertEquals(expected.get(p), epoch(provider), "part " + p);
      }
    }
  }

  @Test
  void elasticShardsFalseGivesEachPartAContiguousBlock() {
    // Part p of 3 reads positions [floor(10 p / 3), floor(10 (p + 1) / 3)): 0..2, 3..5, 6..9.
    List<List<List<Long>>> expected = List.of(List.of(ids(0, 1, 2)), List.of(ids(3, 4, 5)), List.of(ids(6, 7, 8), ids(9)));
    for (int p = 0; p < 3; p++) {
      int part = p;
      try (ShardProvider provider = provider(good, b -> b.shard(3, part).elasticShards(false))) {
        assertEquals(expected.get(p), epoch(provider), "part " + p);
      }
    }
  }

  @Test
  void anElasticStateSavedByThreePartsResumesUnderTwo() {
    List<String> states = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      int part = p;
      try (ShardProvider provider = provider(good, b -> b.shard(3, part).shuffle(true).seed(9));
          BatchIterator<NamedBatch> it = provider.iterator()) {
        it.next();
        states.add(provider.saveState().encode());
      }
    }
    assertEquals(states.get(0), states.get(1), "parts 0 and 1 after one batch each");
    assertEquals(states.get(0), states.get(2), "parts 0 and 2 after one batch each");
    // Three global batches were read; the fourth, the epoch's last sample, goes to part 0 of 2.
    List<List<Long>> whole;
    try (ShardProvider one = provider(good, b -> b.shuffle(true).seed(9))) {
      whole = epoch(one);
    }
    assertEquals(4, whole.size());
    for (int p = 0; p < 2; p++) {
      int part = p;
      try (ShardProvider provider = provider(good, b -> b.shard(2, part).shuffle(true).seed(9))) {
        provider.restoreState(IterationState.decode(states.get(0)));
        assertEquals(p == 0 ? List.of(whole.get(3)) : List.of(), epoch(provider), "part " + p + " of 2, restored");
      }
    }
  }

  /** The price of contiguous parts (docs/shards.md): they resume only under the same part count. */
  @Test
  void aContiguousPartsStateIsRefusedUnderAnotherPartCount() {
    String state;
    try (ShardProvider provider = provider(good, b -> b.shard(3, 0).elasticShards(false).seed(3));
        BatchIterator<NamedBatch> it = provider.iterator()) {
      it.next();
      state = provider.saveState().encode();
    }
    try (ShardProvider provider = provider(good, b -> b.shard(2, 0).elasticShards(false).seed(3))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> provider.restoreState(IterationState.decode(state)));
      assertTrue(e.getMessage().contains("parts=3") && e.getMessage().contains("parts=2"),
          "the message should show the saved and the present part count: " + e.getMessage());
    }
  }

  @Test
  void aCorruptFileFailsTheEpochByDefaultNamingTheFile() {
    try (ShardProvider p = provider(corrupt, b -> {})) {
      RuntimeException e = assertThrows(RuntimeException.class, () -> epoch(p));
      Throwable cause = e;
      while (!(cause instanceof FileFormatException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertInstanceOf(FileFormatException.class, cause, "the cause chain of " + e);
      assertTrue(cause.getMessage().contains("part-00001.parquet"), cause.getMessage());
    }
  }

  @Test
  void badSamplesSkipLeavesTheCorruptFilesSamplesOut() {
    try (ShardProvider p = provider(corrupt, b -> b.batchSize(4).badSamples(BadSamples.skip(3)));
        BatchIterator<NamedBatch> it = p.iterator()) {
      // [0,1,2,3] [4,5,6,7] [8,9] without 3, 4 and 5.
      assertEquals(List.of(ids(0, 1, 2), ids(6, 7), ids(8, 9)), rest(it));
      List<PipelineStats.BadSample> bad = PipelineStats.of(it).badSamples();
      assertEquals(List.of(3L, 4L, 5L), bad.stream().map(PipelineStats.BadSample::sample).toList(), bad.toString());
      for (PipelineStats.BadSample s : bad) {
        assertEquals(-1, s.replacement(), s.toString());
        assertInstanceOf(FileFormatException.class, s.cause(), s.toString());
        assertTrue(s.cause().getMessage().contains("part-00001.parquet"), s.toString());
      }
    }
  }

  @Test
  void badSamplesOverTheBudgetEndTheEpochNamingThem() {
    try (ShardProvider p = provider(corrupt, b -> b.batchSize(4).badSamples(BadSamples.skip(2)))) {
      // 3 in batch 0, 4 and 5 in batch 1: 5 is the third, over the budget of 2.
      PipelineStats.BadSampleBudgetException e = assertThrows(PipelineStats.BadSampleBudgetException.class, () -> epoch(p));
      assertEquals(List.of(3L, 4L, 5L), e.badSamples().stream().map(PipelineStats.BadSample::sample).toList());
      assertTrue(e.getMessage().contains("part-00001.parquet"), e.getMessage());
    }
  }

  @Test
  void badSamplesReplaceWritesTheNextSampleThatReads() {
    try (ShardProvider p = provider(corrupt, b -> b.batchSize(4).badSamples(BadSamples.replace(3)));
        BatchIterator<NamedBatch> it = p.iterator()) {
      // [0,1,2,3] [4,5,6,7] [8,9]: 3, 4 and 5 are replaced by the next sample that reads, 6.
      assertEquals(List.of(ids(0, 1, 2, 6), ids(6, 6, 6, 7), ids(8, 9)), rest(it));
      assertEquals(List.of(6L, 6L, 6L),
          PipelineStats.of(it).badSamples().stream().map(PipelineStats.BadSample::replacement).toList());
    }
  }

  private static String refusal(Runnable setter) {
    return assertThrows(IllegalArgumentException.class, setter::run).getMessage();
  }

  @Test
  void aSettingOutOfRangeIsRefusedWithItsNameItsBoundAndTheValue() {
    ShardProvider.Builder b = ShardProvider.builder(good);
    assertEquals("readers must be >= 0 (0 = the consumer's thread), got -1", refusal(() -> b.readers(-1)));
    assertEquals("readAhead must be >= 0, got -1", refusal(() -> b.readAhead(-1)));
    assertEquals("cacheFiles must be >= 1, got 0", refusal(() -> b.cacheFiles(0)));
    assertEquals("shuffleWindow must be >= 1, got 0", refusal(() -> b.shuffleWindow(0)));
    assertEquals("samplesPerEpoch must be >= 1, got 0", refusal(() -> b.samplesPerEpoch(0)));
    assertEquals("maxLength of 'data' must be >= 1, got 0", refusal(() -> b.maxLength("data", 0)));
    assertEquals("samplesPerFile must be >= 1, got 0", refusal(() -> ShardWriter.builder().samplesPerFile(0)));
    assertEquals("segment must be >= 0, got -1", refusal(() -> ShardWriter.builder().build().segment(good, -1)));
  }
}
