package dev.minibatch.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packed batches dealt to trainers and resumed, against the documents themselves: after a 4-trainer
 * run stopped mid-epoch and resumed on 3, every token of every document exactly once, in order
 * (checked token by token against the generated documents by {@link PackingTest#checkExactlyOnce});
 * a resume under the same count gives each trainer the rows an uninterrupted run gives it; the rows
 * do not depend on the provider's reader threads.
 */
class PackedBatchesTest {
  static final int L = 16;
  static final int SEPARATOR = 1;
  static final int ROWS = 3;
  static final int UNIT = 7;

  @TempDir Path dir;

  /** The documents of {@link PackingTest#randomDocuments}, written as a token shard set of files of 10. */
  static String write(Path dir, int[][] docs) {
    Tokenizer byIndex = new Tokenizer() {
      @Override
      public int[] encode(String text) {
        return docs[Integer.parseInt(text)];
      }

      @Override
      public String decode(int[] tokens) {
        throw new AssertionError("TokenShards.write only encodes: nothing decodes with this tokenizer");
      }

      @Override
      public int vocabularySize() {
        return Integer.MAX_VALUE;
      }

      @Override
      public String name() {
        return "by-index";
      }
    };
    String set = dir.resolve("set").toString();
    TokenShards.builder().tokenizer(byIndex).writer(ShardWriter.builder().samplesPerFile(10).build()).build()
        .write(Documents.of(IntStream.range(0, docs.length).mapToObj(String::valueOf).toList()), set);
    return set;
  }

  static ShardProvider provider(String set, int readers) {
    return ShardProvider.builder(set).batchSize(UNIT).shuffle(true).seed(5).readers(readers).build();
  }

  static List<Packing> packings() {
    return List.of(
        Packing.builder(L).concatenate().separator(SEPARATOR).shiftLabels(true).padding(-7).build(),
        Packing.builder(L).bestFit(3).overlong(Packing.Overlong.SPLIT).separator(SEPARATOR).shiftLabels(true)
            .padding(-7).build());
  }

  /** A trainer: its own provider over the whole set and its share of the packed batches. */
  record Trainer(ShardProvider documents, PackedBatches batches, PipelineIterator<PackedBatch> it)
      implements AutoCloseable {
    static Trainer start(String set, Packing packing, int trainers, int rank, IterationState from, int readers) {
      ShardProvider p = provider(set, readers);
      PackedBatches b = packing.batches(p, ROWS, trainers, rank);
      if (from != null) {
        b.restoreState(from);
      }
      return new Trainer(p, b, b.iterator());
    }

    /** Up to {@code n} batches. */
    List<PackedBatch> take(int n) {
      List<PackedBatch> out = new ArrayList<>();
      while (out.size() < n && it.hasNext()) {
        out.add(it.next());
      }
      return out;
    }

    @Override
    public void close() {
      it.close();
      documents.close();
    }
  }

  /** The rows of batches, in the global order: by batch index, then in the batch. */
  static List<PackedRow> globalRows(List<PackedBatch> batches, String what) {
    List<PackedBatch> sorted = new ArrayList<>(batches);
    sorted.sort(Comparator.comparingLong(PackedBatch::index));
    List<PackedRow> rows = new ArrayList<>();
    for (int i = 0; i < sorted.size(); i++) {
      PackedBatch b = sorted.get(i);
      assertEquals(i, b.index(), what + ": global batches 0, 1, 2, … each once");
      if (i < sorted.size() - 1) {
        assertEquals(ROWS, b.rows().size(), what + ": batch " + i + " is not the last, so it is full");
      }
      rows.addAll(b.rows());
    }
    return rows;
  }

  /** The whole epoch for one trainer of one. */
  static List<PackedBatch> uninterrupted(String set, Packing packing) {
    try (Trainer t = Trainer.start(set, packing, 1, 0, null, 1)) {
      return t.take(Integer.MAX_VALUE);
    }
  }

  @Test
  void fourTrainersStoppedAtEveryStepResumeOnThreeWithEveryTokenOnce() {
    int[][] docs = PackingTest.randomDocuments(new Random(45), 120, 2 * L);
    String set = write(dir, docs);
    for (Packing packing : packings()) {
      List<PackedBatch> whole = uninterrupted(set, packing);
      int m = whole.size();
      PackingTest.checkExactlyOnce(packing + ", one trainer", L, SEPARATOR, false, docs, globalRows(whole, "one"));
      int midUnit = 0;
      // q batches each: the last rounds leave some of the 4 trainers without a batch.
      for (int q = 1; q <= (m + 3) / 4 + 1; q++) {
        String what = packing + ", stopped after " + q + " batches each";
        List<PackedBatch> delivered = new ArrayList<>();
        String saved = null;
        for (int rank = 0; rank < 4; rank++) {
          try (Trainer t = Trainer.start(set, packing, 4, rank, null, 1)) {
            List<PackedBatch> took = t.take(q);
            delivered.addAll(took);
            String s = t.batches().saveState().encode();
            // Trainer p has the batches p, p + 4, … below m: in the last round some have none left.
            int has = (m - rank + 3) / 4;
            assertEquals(Math.min(q, has), took.size(), what + ": trainer " + rank);
            if (rank == 0) {
              saved = s;
            } else if (has >= q) {
              assertEquals(saved, s, what + ": trainer " + rank + " saves what trainer 0 saves");
            }
          }
        }
        IterationState state = IterationState.decode(saved);
        if (4L * q < m) {
          assertEquals(0, state.epoch(), what);
          assertEquals(4 * q, state.position(), what + ": global batches done");
          midUnit += state.carried()[0] > 0 ? 1 : 0;
        } else {
          assertEquals(1, state.epoch(), what + ": past the epoch, the next one");
        }
        List<PackedBatch> resumed = new ArrayList<>();
        for (int rank = 0; rank < 3; rank++) {
          try (Trainer t = Trainer.start(set, packing, 3, rank, state, 1)) {
            resumed.addAll(t.take(Integer.MAX_VALUE));
          }
        }
        if (state.epoch() == 1) {
          // The four trainers read the whole epoch; the three read the next one, whole too.
          PackingTest.checkExactlyOnce(what, L, SEPARATOR, false, docs, globalRows(delivered, what));
          PackingTest.checkExactlyOnce(what + ", epoch 1", L, SEPARATOR, false, docs, globalRows(resumed, what));
          continue;
        }
        delivered.addAll(resumed);
        List<PackedRow> rows = globalRows(delivered, what);
        PackingTest.checkExactlyOnce(what, L, SEPARATOR, false, docs, rows);
        // And they are the rows one trainer packs without a stop.
        List<PackedRow> expected = globalRows(whole, what);
        assertEquals(expected.size(), rows.size(), what);
        for (int r = 0; r < rows.size(); r++) {
          assertArrayEquals(expected.get(r).ids(), rows.get(r).ids(), what + ", row " + r);
        }
      }
      assertTrue(midUnit > 0, packing + ": some stop falls inside a unit, so a resume drops rows of a unit it packs again");
    }
  }

  @Test
  void aResumeUnderTheSameCountGivesEveryTrainerTheRowsOfAnUninterruptedRun() {
    int[][] docs = PackingTest.randomDocuments(new Random(7), 90, 2 * L);
    String set = write(dir, docs);
    for (Packing packing : packings()) {
      for (int rank = 0; rank < 4; rank++) {
        List<PackedBatch> expected;
        try (Trainer t = Trainer.start(set, packing, 4, rank, null, 1)) {
          expected = t.take(Integer.MAX_VALUE);
        }
        IterationState state;
        List<PackedBatch> actual = new ArrayList<>();
        try (Trainer t = Trainer.start(set, packing, 4, rank, null, 1)) {
          actual.addAll(t.take(2));
          state = IterationState.decode(t.batches().saveState().encode());
        }
        try (Trainer t = Trainer.start(set, packing, 4, rank, state, 1)) {
          actual.addAll(t.take(Integer.MAX_VALUE));
        }
        assertBatchesEqual(packing + ", trainer " + rank, expected, actual);
      }
    }
  }

  @Test
  void theSameBatchesForOneAndThreeReaderThreads() {
    int[][] docs = PackingTest.randomDocuments(new Random(3), 150, 2 * L);
    String set = write(dir, docs);
    for (Packing packing : packings()) {
      for (int rank = 0; rank < 2; rank++) {
        List<List<PackedBatch>> byReaders = new ArrayList<>();
        for (int readers : new int[] {1, 3}) {
          try (Trainer t = Trainer.start(set, packing, 2, rank, null, readers)) {
            byReaders.add(t.take(Integer.MAX_VALUE));
          }
        }
        assertFalse(byReaders.get(0).isEmpty());
        assertBatchesEqual(packing + ", trainer " + rank + " of 2", byReaders.get(0), byReaders.get(1));
      }
    }
  }

  @Test
  void epochsFollowOneAnotherAndTheStateAfterAnEpochIsTheNextOnesStart() {
    int[][] docs = PackingTest.randomDocuments(new Random(11), 60, 2 * L);
    String set = write(dir, docs);
    Packing packing = packings().get(1);
    try (ShardProvider p = provider(set, 1)) {
      PackedBatches batches = packing.batches(p, ROWS, 1, 0);
      List<PackedBatch> first = new ArrayList<>();
      batches.forEach(first::add);
      IterationState afterFirst = batches.saveState();
      assertEquals(1, afterFirst.epoch());
      assertEquals(0, afterFirst.position());
      List<PackedBatch> second = new ArrayList<>();
      batches.forEach(second::add);
      PackingTest.checkExactlyOnce("epoch 0", L, SEPARATOR, false, docs, globalRows(first, "epoch 0"));
      PackingTest.checkExactlyOnce("epoch 1", L, SEPARATOR, false, docs, globalRows(second, "epoch 1"));
      assertNotEquals(docsOf(first), docsOf(second), "epoch 1 is shuffled anew");
      // Broken off mid-epoch, the next iteration is the next epoch, whole.
      PipelineIterator<PackedBatch> broken = batches.iterator();
      broken.next();
      PipelineIterator<PackedBatch> next = batches.iterator();
      List<PackedBatch> third = new ArrayList<>();
      third.add(next.next());
      assertEquals(3, batches.saveState().epoch(), "the state names the epoch in progress");
      assertEquals(1, batches.saveState().position());
      next.forEachRemaining(third::add);
      PackingTest.checkExactlyOnce("epoch 3", L, SEPARATOR, false, docs, globalRows(third, "epoch 3"));
      assertEquals(4, batches.saveState().epoch());
      // The state saved after epoch 0 restored elsewhere gives epoch 1.
      try (ShardProvider q = provider(set, 1)) {
        PackedBatches again = packing.batches(q, ROWS, 1, 0);
        again.restoreState(afterFirst);
        List<PackedBatch> resumed = new ArrayList<>();
        again.forEach(resumed::add);
        assertBatchesEqual("epoch 1 from the saved state", second, resumed);
      }
    }
  }

  @Test
  void theBatchArraysAreTheRows() {
    int[][] docs = PackingTest.randomDocuments(new Random(1), 20, L);
    String set = write(dir, docs);
    try (ShardProvider p = provider(set, 1)) {
      PackedBatch b = packings().get(1).batches(p, ROWS, 1, 0).iterator().next();
      assertArrayEquals(new long[] {ROWS, L}, b.ids().shape());
      for (int r = 0; r < ROWS; r++) {
        PackedRow row = b.rows().get(r);
        assertArrayEquals(row.ids(), b.ids().getRow(r).toIntVector());
        assertArrayEquals(row.labels(), b.labels().getRow(r).toIntVector());
        assertArrayEquals(row.lossMask(), b.lossMask().getRow(r).toIntVector());
        assertArrayEquals(row.segmentIds(), b.segmentIds().getRow(r).toIntVector());
        assertArrayEquals(row.positionIds(), b.positionIds().getRow(r).toIntVector());
      }
    }
  }

  @Test
  void wrongSettingsAndStatesAreRefused() {
    int[][] docs = PackingTest.randomDocuments(new Random(2), 40, L);
    String set = write(dir, docs);
    Packing packing = packings().get(0);
    try (ShardProvider p = provider(set, 1);
        ShardProvider part = ShardProvider.builder(set).batchSize(UNIT).shard(2, 0).build()) {
      assertThrows(IllegalArgumentException.class, () -> packing.batches(p, 0, 1, 0));
      assertThrows(IllegalArgumentException.class, () -> packing.batches(p, ROWS, 2, 2));
      IllegalArgumentException sharded = assertThrows(IllegalArgumentException.class,
          () -> packing.batches(part, ROWS, 1, 0));
      assertTrue(sharded.getMessage().contains("without shard(k, p)"), sharded.getMessage());

      IterationState other = packings().get(1).batches(p, ROWS, 1, 0).saveState();
      PackedBatches batches = packing.batches(p, ROWS, 1, 0);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> batches.restoreState(other));
      assertTrue(e.getMessage().startsWith("not a state of PackedBatches[Packing[L 16, concatenate"), e.getMessage());

      // A state naming a row its unit does not have: the epoch stops with the unit and its row count.
      IterationState good = batches.saveState();
      IterationState bad = new IterationState(good.seed(), good.epoch(), 0, new int[] {500}, good.settings(),
          good.parts());
      batches.restoreState(bad);
      PipelineIterator<PackedBatch> it = batches.iterator();
      IllegalStateException s = assertThrows(IllegalStateException.class, it::hasNext);
      assertTrue(s.getMessage().startsWith("the restored state names row 500 of unit 0 of epoch 0, which packs into"),
          s.getMessage());
      assertFalse(it.hasNext(), "the failed epoch is over");
    }
  }

  /** The documents of the segments, in order. */
  static List<Long> docsOf(List<PackedBatch> batches) {
    List<Long> docs = new ArrayList<>();
    for (PackedBatch b : batches) {
      for (PackedRow r : b.rows()) {
        for (int s = 0; s < r.segments(); s++) {
          docs.add(r.document(s));
        }
      }
    }
    return docs;
  }

  static void assertBatchesEqual(String what, List<PackedBatch> expected, List<PackedBatch> actual) {
    assertEquals(expected.size(), actual.size(), what + ": batches");
    Set<Long> indices = new HashSet<>();
    for (int i = 0; i < expected.size(); i++) {
      PackedBatch e = expected.get(i);
      PackedBatch a = actual.get(i);
      assertEquals(e.index(), a.index(), what + ", batch " + i);
      assertTrue(indices.add(a.index()), what + ": batch " + a.index() + " twice");
      assertEquals(e.rows().size(), a.rows().size(), what + ", batch " + i);
      for (int r = 0; r < e.rows().size(); r++) {
        PackedRow er = e.rows().get(r);
        PackedRow ar = a.rows().get(r);
        String at = what + ", batch " + e.index() + ", row " + r;
        assertArrayEquals(er.ids(), ar.ids(), at);
        assertArrayEquals(er.labels(), ar.labels(), at);
        assertArrayEquals(er.boundaries(), ar.boundaries(), at);
        for (int s = 0; s < er.segments(); s++) {
          assertEquals(er.document(s), ar.document(s), at);
          assertEquals(er.documentOffset(s), ar.documentOffset(s), at);
        }
      }
    }
  }
}
