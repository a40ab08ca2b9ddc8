package dev.minibatch.samples.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.text.PackedBatch;
import dev.minibatch.text.PackedBatches;
import dev.minibatch.text.PackedRow;
import dev.minibatch.text.Packing;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Packing reads any provider with a variable-length INT32 member, here a generated one ({@link
 * CharLine}'s {@code chars}): every document's tokens come out exactly once and in order, checked
 * against the lines the test made, from a List source and a stream; the same rows for 1 and 3
 * reader threads; and packed batches dealt to 1, 2 and, after a resume, 3 trainers.
 */
class PackedCharLinesTest {
  private static final int L = 64;
  private static final int SEPARATOR = 1000;

  /** 150 lines of 1 to 60 character ids, made with a seed: the independent answer. */
  private static List<CharLine> lines() {
    SplittableRandom rnd = new SplittableRandom(42);
    List<CharLine> out = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      int n = 1 + rnd.nextInt(60);
      int[] chars = new int[n];
      for (int k = 0; k < n; k++) {
        chars[k] = 1 + rnd.nextInt(90);
      }
      out.add(new CharLine(chars, chars.clone()));
    }
    return out;
  }

  private static Packing packing() {
    return Packing.builder(L).bestFit(8).separator(SEPARATOR).build();
  }

  /** The tokens each document's segments hold, concatenated in row order. */
  private static Map<Long, List<Integer>> documents(List<PackedRow> rows) {
    Map<Long, List<Integer>> docs = new HashMap<>();
    for (PackedRow row : rows) {
      for (int s = 0; s < row.segments(); s++) {
        List<Integer> doc = docs.computeIfAbsent(row.document(s), d -> new ArrayList<>());
        assertEquals(doc.size(), row.documentOffset(s), "segment " + s + " continues its document where it left off");
        for (int i = row.boundary(s); i < row.boundary(s + 1); i++) {
          doc.add(row.ids()[i]);
        }
      }
    }
    return docs;
  }

  /** Every line's ids, then the separator, exactly once, in order. */
  private static void assertEveryLineOnce(List<CharLine> lines, Map<Long, List<Integer>> docs) {
    assertEquals(lines.size(), docs.size());
    for (int i = 0; i < lines.size(); i++) {
      List<Integer> expected = new ArrayList<>();
      for (int c : lines.get(i).chars()) {
        expected.add(c);
      }
      expected.add(SEPARATOR);
      assertEquals(expected, docs.get((long) i), "line " + i);
    }
  }

  private static List<PackedRow> pass(Reader<PackedRow> rows) {
    List<PackedRow> out = new ArrayList<>();
    try (PipelineIterator<PackedRow> it = rows.iterator()) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  @Test
  void aGeneratedListProvidersVariableMemberIsPackedEveryTokenOnceInOrder() {
    List<CharLine> lines = lines();
    try (CharLineProvider one = CharLineProvider.builder().samples(lines).batchSize(16).shuffle(true).seed(5).build();
        CharLineProvider three = CharLineProvider.builder().samples(lines).batchSize(16).shuffle(true).seed(5)
            .readers(3).build()) {
      List<PackedRow> rows = pass(packing().rows(one, "chars"));
      assertEveryLineOnce(lines, documents(rows));
      for (PackedRow r : rows) {
        assertTrue(r.realTokens() <= L);
      }
      List<PackedRow> threaded = pass(packing().rows(three, "chars"));
      assertEquals(rows.size(), threaded.size());
      for (int i = 0; i < rows.size(); i++) {
        assertArrayEquals(rows.get(i).ids(), threaded.get(i).ids(), "row " + i);
        assertArrayEquals(rows.get(i).segmentIds(), threaded.get(i).segmentIds(), "row " + i);
      }
    }
  }

  @Test
  void aStreamingProviderIsPackedToo() {
    List<CharLine> lines = lines();
    try (CharLineProvider stream = CharLineProvider.builder().streaming(lines).batchSize(10).build()) {
      assertEveryLineOnce(lines, documents(pass(packing().rows(stream, "chars"))));
    }
  }

  @Test
  void packedBatchesAreDealtAndResumeUnderAnotherTrainerCount() {
    List<CharLine> lines = lines();
    Map<Long, List<PackedRow>> single = new HashMap<>();
    try (CharLineProvider p = CharLineProvider.builder().samples(lines).batchSize(16).shuffle(true).seed(5).build()) {
      for (PackedBatch b : packing().batches(p, "chars", 4, 1, 0)) {
        single.put(b.index(), b.rows());
      }
    }
    List<PackedRow> all = new ArrayList<>();
    single.values().forEach(all::addAll);
    assertEveryLineOnce(lines, documents(all));
    // Two trainers take two batches each, save, and three trainers take the rest.
    Map<Long, List<PackedRow>> dealt = new HashMap<>();
    String saved = null;
    for (int rank = 0; rank < 2; rank++) {
      try (CharLineProvider p = CharLineProvider.builder().samples(lines).batchSize(16).shuffle(true).seed(5).build()) {
        PackedBatches batches = packing().batches(p, "chars", 4, 2, rank);
        try (PipelineIterator<PackedBatch> it = batches.iterator()) {
          for (int q = 0; q < 2; q++) {
            PackedBatch b = it.next();
            dealt.put(b.index(), b.rows());
          }
          String state = batches.saveState().encode();
          assertTrue(saved == null || saved.equals(state), "every trainer saves the same state");
          saved = state;
        }
      }
    }
    for (int rank = 0; rank < 3; rank++) {
      try (CharLineProvider p = CharLineProvider.builder().samples(lines).batchSize(16).shuffle(true).seed(5).build()) {
        PackedBatches batches = packing().batches(p, "chars", 4, 3, rank);
        batches.restoreState(IterationState.decode(saved));
        for (PackedBatch b : batches) {
          assertEquals(null, dealt.put(b.index(), b.rows()), "batch " + b.index() + " twice");
        }
      }
    }
    assertEquals(single.keySet(), dealt.keySet());
    for (long j : single.keySet()) {
      for (int r = 0; r < single.get(j).size(); r++) {
        assertArrayEquals(single.get(j).get(r).ids(), dealt.get(j).get(r).ids(), "batch " + j + ", row " + r);
      }
    }
  }

  @Test
  void aMemberThatIsNotThereIsNamed() {
    try (CharLineProvider p = CharLineProvider.builder().samples(lines()).batchSize(16).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> packing().rows(p, "words"));
      assertEquals("the documents' provider has no member 'words' to pack: its members are [chars] and [next]",
          e.getMessage());
    }
  }
}
