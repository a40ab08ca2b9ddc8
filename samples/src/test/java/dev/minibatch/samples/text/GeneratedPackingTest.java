package dev.minibatch.samples.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.text.BudgetBatch;
import dev.minibatch.text.BudgetBatches;
import dev.minibatch.text.PackedBatch;
import dev.minibatch.text.PackedBatches;
import dev.minibatch.text.Packing;
import dev.minibatch.text.TokenBudget;
import dev.minibatch.text.TypedPackedBatches;
import dev.minibatch.shards.ShardProvider;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The typed front end of packing: {@code CharLineProvider.Builder.packed(...)} and {@code
 * tokenBudget(...)}, generated because {@link CharLine} has a variable-length INT32 member and
 * minibatch-text is on the class path. Every answer is computed here from the lines the test made:
 * each line's ids and separator exactly once, in order; the typed arrays agree with the segments
 * (ids, segment and position ids, loss mask, {@code cu_seqlens}); {@code shard(k, p)} deals packed
 * batches and a state saved under four trainers resumes under three; token budgets are never
 * exceeded and hold every line once.
 */
class GeneratedPackingTest {
  private static final int L = 48;
  private static final int SEPARATOR = 1000;

  /** 200 lines of 1 to 40 character ids, made with a seed: the independent answer. */
  private static List<CharLine> lines() {
    SplittableRandom rnd = new SplittableRandom(11);
    List<CharLine> out = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int n = 1 + rnd.nextInt(40);
      int[] chars = new int[n];
      for (int k = 0; k < n; k++) {
        chars[k] = 1 + rnd.nextInt(90);
      }
      out.add(new CharLine(chars, chars.clone()));
    }
    return out;
  }

  private static Packing packing() {
    return Packing.builder(L).bestFit(4).separator(SEPARATOR).documentsPerUnit(64).build();
  }

  private static CharLineProvider.Builder builder(List<CharLine> lines) {
    return CharLineProvider.builder().samples(lines).batchSize(4).shuffle(true).seed(9);
  }

  /**
   * Checks a typed batch against its own rows read position by position, and returns each
   * document's pieces found by scanning the segment ids (not the packer's boundaries).
   */
  private static void check(CharLinePackedBatch b, Map<Long, List<Integer>> docs) {
    PackedBatch packed = b.packed();
    int rows = b.rows();
    assertTrue(rows >= 1 && rows <= 4, "rows " + rows);
    int[][] ids = b.getChars().toIntMatrix();
    int[][] segments = b.getCharsSegmentIds().toIntMatrix();
    int[][] positions = b.getCharsPositionIds().toIntMatrix();
    int[][] mask = b.getCharsLossMask().toIntMatrix();
    int[] cu = b.getCharsBoundaries().toIntVector();
    List<Integer> expectedCu = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      assertEquals(L, ids[r].length);
      int segment = 0;
      int start = 0;
      for (int i = 0; i < L; i++) {
        int id = segments[r][i];
        if (i == 0 || id != segments[r][i - 1]) {
          expectedCu.add(r * L + i);
          start = i;
          if (id != 0) {
            assertEquals(segment + 1, id, "segments are numbered in order, row " + r + ", position " + i);
            segment = id;
          }
        }
        assertEquals(id == 0 ? 0 : i - start, positions[r][i], "position id, row " + r + ", position " + i);
        assertEquals(id == 0 ? 0 : 1, mask[r][i], "loss mask, row " + r + ", position " + i);
        if (id != 0) {
          long doc = packed.rows().get(r).document(id - 1);
          docs.computeIfAbsent(doc, d -> new ArrayList<>()).add(ids[r][i]);
        }
      }
      assertEquals(packed.rows().get(r).segments(), segment, "row " + r);
    }
    expectedCu.add(rows * L);
    assertEquals(expectedCu, toList(cu), "cu_seqlens of batch " + b.index());
  }

  private static List<Integer> toList(int[] a) {
    List<Integer> out = new ArrayList<>();
    for (int v : a) {
      out.add(v);
    }
    return out;
  }

  /** Every line's ids, then the separator, exactly once, in order. */
  private static void assertEveryLineOnce(List<CharLine> lines, Map<Long, List<Integer>> docs) {
    assertEquals(lines.size(), docs.size(), "documents");
    for (int i = 0; i < lines.size(); i++) {
      List<Integer> expected = toList(lines.get(i).chars());
      expected.add(SEPARATOR);
      assertEquals(expected, docs.get((long) i), "line " + i);
    }
  }

  private static Map<Long, CharLinePackedBatch> epoch(TypedPackedBatches<CharLinePackedBatch> batches) {
    Map<Long, CharLinePackedBatch> out = new TreeMap<>();
    for (CharLinePackedBatch b : batches) {
      assertEquals(null, out.put(b.index(), b), "batch " + b.index() + " twice");
    }
    return out;
  }

  @Test
  void theBuilderPacksTheVariableIntMemberEveryTokenOnceWithTypedArrays() {
    List<CharLine> lines = lines();
    CharLineProvider.Builder builder = builder(lines);
    Map<Long, List<Integer>> docs = new HashMap<>();
    try (TypedPackedBatches<CharLinePackedBatch> batches = builder.packed(packing())) {
      assertEquals(4, batches.rowsPerBatch());
      Map<Long, CharLinePackedBatch> epoch = epoch(batches);
      assertEquals(List.copyOf(epoch.keySet()), java.util.stream.LongStream.range(0, epoch.size()).boxed().toList(),
          "one trainer takes every global batch in order");
      epoch.values().forEach(b -> check(b, docs));
    }
    assertEveryLineOnce(lines, docs);
    // The builder is left as it was: it still builds the plain provider at its batch size.
    try (CharLineProvider plain = builder.build()) {
      assertEquals(4, plain.batchSize());
    }
  }

  @Test
  void packingIsTheLastStageOfTheIterationsStats() {
    try (TypedPackedBatches<CharLinePackedBatch> batches = builder(lines()).readers(2).packed(packing());
        PipelineIterator<CharLinePackedBatch> it = batches.iterator()) {
      long rows = 0;
      while (it.hasNext()) {
        rows += it.next().rows();
      }
      List<PipelineStats.StageStats> stages = it.stats().stages();
      PipelineStats.StageStats pack = stages.get(stages.size() - 1);
      assertEquals(PackedBatches.STAGE, pack.name());
      assertEquals(rows, pack.items(), "one item a packed row");
      assertTrue(stages.size() > 1, "the documents' stages come first: " + stages);
      assertTrue(pack.busyNanos() > 0 && pack.busyNanos() <= pack.consumerWaitNanos(), pack.toString());
    }
  }

  @Test
  void theBatchesAreTheDocumentedCompositionAndTheSameForThreeReaders() {
    List<CharLine> lines = lines();
    List<PackedBatch> composed = new ArrayList<>();
    // The documented meaning: a documents' provider of documentsPerUnit documents a batch, one part,
    // the builder's order, packed into batches of batchSize rows for trainer 0 of 1.
    try (CharLineProvider documents = CharLineProvider.builder().samples(lines).batchSize(64).shuffle(true).seed(9)
        .build()) {
      packing().batches(documents, CharLineBatch.CHARS, 4, 1, 0).forEach(composed::add);
    }
    for (int readers : new int[] {0, 3}) {
      try (TypedPackedBatches<CharLinePackedBatch> typed = builder(lines).readers(readers).packed(packing())) {
        List<CharLinePackedBatch> got = new ArrayList<>(epoch(typed).values());
        assertEquals(composed.size(), got.size(), readers + " readers");
        for (int j = 0; j < got.size(); j++) {
          assertArrayEquals(composed.get(j).ids().toIntMatrix(), got.get(j).getChars().toIntMatrix(),
              readers + " readers, batch " + j);
          assertArrayEquals(composed.get(j).segmentIds().toIntMatrix(), got.get(j).getCharsSegmentIds().toIntMatrix(),
              readers + " readers, batch " + j);
        }
      }
    }
  }

  @Test
  void shardDealsPackedBatchesAndAStateOfFourTrainersResumesOnThree() {
    List<CharLine> lines = lines();
    Map<Long, CharLinePackedBatch> all;
    try (TypedPackedBatches<CharLinePackedBatch> one = builder(lines).packed(packing())) {
      all = epoch(one);
    }
    Map<Long, CharLinePackedBatch> dealt = new HashMap<>();
    String saved = null;
    for (int rank = 0; rank < 4; rank++) {
      try (TypedPackedBatches<CharLinePackedBatch> trainer = builder(lines).shard(4, rank).packed(packing());
          PipelineIterator<CharLinePackedBatch> it = trainer.iterator()) {
        for (int q = 0; q < 2; q++) {
          CharLinePackedBatch b = it.next();
          assertEquals(rank + 4L * q, b.index(), "trainer " + rank + " of 4 takes global batches rank, rank + 4, …");
          dealt.put(b.index(), b);
        }
        String state = trainer.saveState().encode();
        assertTrue(saved == null || saved.equals(state), "every trainer saves the same state");
        saved = state;
      }
    }
    for (int rank = 0; rank < 3; rank++) {
      try (TypedPackedBatches<CharLinePackedBatch> trainer = builder(lines).shard(3, rank).packed(packing())) {
        trainer.restoreState(IterationState.decode(saved));
        for (CharLinePackedBatch b : trainer) {
          assertEquals(null, dealt.put(b.index(), b), "batch " + b.index() + " twice");
        }
      }
    }
    assertEquals(all.keySet(), dealt.keySet());
    Map<Long, List<Integer>> docs = new HashMap<>();
    for (long j : all.keySet()) {
      assertArrayEquals(all.get(j).getChars().toIntMatrix(), dealt.get(j).getChars().toIntMatrix(), "batch " + j);
      check(dealt.get(j), docs);
    }
    assertEveryLineOnce(lines, docs);
  }

  @Test
  void tokenBudgetBatchesStayUnderTheBudgetAndHoldEveryLineOnce() {
    List<CharLine> lines = lines();
    TokenBudget budget = TokenBudget.builder(120).window(50).seed(3).build();
    Map<Long, List<Integer>> docs = new HashMap<>();
    for (int rank = 0; rank < 2; rank++) {
      try (BudgetBatches batches = builder(lines).shard(2, rank).tokenBudget(budget)) {
        for (BudgetBatch b : batches) {
          assertTrue(b.rows() * b.width() <= 120, b.rows() + " rows of " + b.width() + " over the budget of 120");
          for (int r = 0; r < b.rows(); r++) {
            List<Integer> doc = new ArrayList<>();
            for (int i = 0; i < b.lengths()[r]; i++) {
              doc.add(b.ids()[r * b.width() + i]);
            }
            doc.add(SEPARATOR);
            assertEquals(null, docs.put(b.documents()[r], doc), "line " + b.documents()[r] + " twice");
          }
        }
      }
    }
    assertEveryLineOnce(lines, docs);
  }

  @Test
  void settingsThatDropOrRepeatDocumentsAreRefused() {
    List<CharLine> lines = lines();
    IllegalArgumentException discard = assertThrows(IllegalArgumentException.class,
        () -> builder(lines).lastBatch(LastBatch.DISCARD).packed(L));
    assertEquals("packed batches read every document exactly once an epoch, so the documents' lastBatch must be"
        + " PARTIAL, got DISCARD (the last batch of packed batches holds what is left)", discard.getMessage());
    IllegalArgumentException even = assertThrows(IllegalArgumentException.class,
        () -> builder(lines).shard(2, 0).evenShards(true).tokenBudget(100));
    assertEquals("token-budget batches read every document exactly once an epoch: evenShards(true) would repeat"
        + " documents in the short parts; leave it unset", even.getMessage());
    IllegalArgumentException rows = assertThrows(IllegalArgumentException.class,
        () -> CharLineProvider.builder().samples(lines).packed(L));
    assertEquals("packed batches need batchSize(R), the rows of a batch, > 0, set on the provider's builder; got none",
        rows.getMessage());
    IllegalStateException source = assertThrows(IllegalStateException.class,
        () -> CharLineProvider.builder().batchSize(4).packed(L));
    assertTrue(source.getMessage().startsWith("CharLineProvider: no samples"), source.getMessage());
  }

  @Test
  void aShardSourceIsPackedAndItsOwnBuilderCannotDropDocuments(@TempDir Path dir) {
    List<CharLine> lines = lines();
    String set = dir.resolve("lines").toString();
    CharLineShards.write(lines, set);
    Map<Long, List<Integer>> docs = new HashMap<>();
    try (TypedPackedBatches<CharLinePackedBatch> batches = CharLineProvider.builder().shards(set).batchSize(4).seed(9)
        .packed(packing())) {
      for (CharLinePackedBatch b : batches) {
        check(b, docs);
      }
    }
    assertEveryLineOnce(lines, docs);
    // Settings that drop or repeat documents are refused on the shard source's own builder too.
    IllegalArgumentException discard = assertThrows(IllegalArgumentException.class, () -> CharLineProvider.builder()
        .shards(ShardProvider.builder(set).lastBatch(LastBatch.DISCARD)).batchSize(4).packed(L));
    assertTrue(discard.getMessage().contains("lastBatch is set twice, to PARTIAL and to DISCARD"), discard.getMessage());
    IllegalArgumentException even = assertThrows(IllegalArgumentException.class, () -> CharLineProvider.builder()
        .shards(ShardProvider.builder(set).shard(2, 0).evenShards(true)).tokenBudget(100));
    assertTrue(even.getMessage().contains("evenShards is set twice"), even.getMessage());
  }
}
