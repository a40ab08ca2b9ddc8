package dev.minibatch.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.shards.ShardProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token-budget batches against batches worked out by hand from the rule in {@link TokenBudget}, and,
 * over random lengths, against the documents: every document exactly once per pass, no batch over
 * the budget, windows sorted and cut greedily, the shuffle a permutation of each window's batches.
 */
class TokenBudgetTest {
  @TempDir Path dir;

  /** Document {@code i} of the given lengths: ids {@code 100 i + 1, 100 i + 2, …}, none 0 (the padding). */
  static int[][] documents(int... lengths) {
    int[][] docs = new int[lengths.length][];
    for (int i = 0; i < lengths.length; i++) {
      docs[i] = new int[lengths[i]];
      for (int t = 0; t < lengths[i]; t++) {
        docs[i][t] = 100 * i + t + 1;
      }
    }
    return docs;
  }

  static Reader<int[]> reader(int[][] docs) {
    return () -> PipelineIterator.of(List.of(docs).iterator());
  }

  static List<long[]> documentsOf(List<BudgetBatch> batches) {
    return batches.stream().map(BudgetBatch::documents).toList();
  }

  static final int[] TEN = {5, 2, 7, 3, 3, 1, 8, 4, 2, 6};

  @Test
  void aWindowOfTenIsSortedAndCutUnderSixteen() {
    // Sorted by length, ties by position: d5(1) d1(2) d8(2) d3(3) d4(3) d7(4) d0(5) d9(6) d2(7) d6(8).
    // Greedy under 16: d5..d4 is 5 x 3 = 15 (d7 would make 6 x 4 = 24); d7 d0 2 x 5 = 10 (d9: 3 x 6 = 18);
    // d9 d2 2 x 7 = 14 (d6: 3 x 8 = 24); d6 alone 1 x 8.
    List<BudgetBatch> batches = TokenBudget.builder(16).window(10).build().batches(reader(documents(TEN))).toList();
    assertEquals(4, batches.size());
    long[][] expected = {{5, 1, 8, 3, 4}, {7, 0}, {9, 2}, {6}};
    int[][] shapes = {{5, 3}, {2, 5}, {2, 7}, {1, 8}};
    for (int b = 0; b < 4; b++) {
      assertArrayEquals(expected[b], batches.get(b).documents(), "batch " + b);
      assertEquals(shapes[b][0], batches.get(b).rows(), "rows of batch " + b);
      assertEquals(shapes[b][1], batches.get(b).width(), "width of batch " + b);
    }
    BudgetBatch first = batches.get(0);
    assertArrayEquals(new int[] {1, 2, 2, 3, 3}, first.lengths());
    assertArrayEquals(new int[] {
        501, 0, 0,
        101, 102, 0,
        801, 802, 0,
        301, 302, 303,
        401, 402, 403}, first.ids());
    assertArrayEquals(new int[] {
        1, 0, 0,
        1, 1, 0,
        1, 1, 0,
        1, 1, 1,
        1, 1, 1}, first.mask());
    assertEquals(11, first.realTokens());
    assertEquals(15, first.positions());
    assertArrayEquals(new int[] {
        901, 902, 903, 904, 905, 906, 0,
        201, 202, 203, 204, 205, 206, 207}, batches.get(2).ids());
  }

  @Test
  void windowsOfFourAreSortedAndCutOneByOne() {
    // Window d0-d3 (5 2 7 3): d1 d3 d0 is 3 x 5 = 15, then d2 1 x 7. Window d4-d7 (3 1 8 4): d5 d4 d7
    // 3 x 4 = 12, then d6. Window d8-d9 (2 6): 2 x 6 = 12.
    List<BudgetBatch> batches = TokenBudget.builder(16).window(4).padding(-1).build()
        .batches(reader(documents(TEN))).toList();
    List<long[]> expected = List.of(new long[] {1, 3, 0}, new long[] {2}, new long[] {5, 4, 7}, new long[] {6},
        new long[] {8, 9});
    assertEquals(expected.size(), batches.size());
    for (int b = 0; b < expected.size(); b++) {
      assertArrayEquals(expected.get(b), batches.get(b).documents(), "batch " + b);
    }
    // The padding id fills what the mask leaves out.
    assertArrayEquals(new int[] {801, 802, -1, -1, -1, -1, 901, 902, 903, 904, 905, 906}, batches.get(4).ids());
  }

  @Test
  void aSeedShufflesEachWindowsBatchesByTheDocumentedDraw() {
    int[][] docs = documents(TEN);
    // Unshuffled with windows of 4: [1 3 0] [2] | [5 4 7] [6] | [8 9].
    long[][][] windows = {{{1, 3, 0}, {2}}, {{5, 4, 7}, {6}}, {{8, 9}}};
    TokenBudget budget = TokenBudget.builder(16).window(4).seed(42).build();
    Reader<BudgetBatch> reader = budget.batches(reader(docs));
    for (int pass : new int[] {0, 1, 2, 3}) {
      // The documented generator of pass p, one for the pass, Fisher-Yates from the last batch down.
      SplittableRandom random = new SplittableRandom(new SplittableRandom(42 + pass * 0x9E3779B97F4A7C15L).nextLong());
      List<long[]> expected = new ArrayList<>();
      for (long[][] window : windows) {
        long[][] w = window.clone();
        for (int i = w.length - 1; i > 0; i--) {
          int j = random.nextInt(i + 1);
          long[] t = w[i];
          w[i] = w[j];
          w[j] = t;
        }
        expected.addAll(List.of(w));
      }
      List<BudgetBatch> got;
      try (PipelineIterator<BudgetBatch> it = reader.iterator(pass)) {
        got = new ArrayList<>();
        it.forEachRemaining(got::add);
      }
      assertEquals(expected.size(), got.size());
      for (int b = 0; b < got.size(); b++) {
        assertArrayEquals(expected.get(b), got.get(b).documents(), "pass " + pass + ", batch " + b);
      }
    }
    // iterator() counts passes: its first two are passes 0 and 1.
    List<long[]> first = documentsOf(reader.toList());
    List<long[]> second = documentsOf(reader.toList());
    assertBatchesEqual(documentsOf(budget.batches(reader(docs)).toList()), first);
    List<BudgetBatch> pass1 = new ArrayList<>();
    try (PipelineIterator<BudgetBatch> it = budget.batches(reader(docs)).iterator(1)) {
      it.forEachRemaining(pass1::add);
    }
    assertBatchesEqual(documentsOf(pass1), second);
  }

  static void assertBatchesEqual(List<long[]> expected, List<long[]> actual) {
    assertEquals(expected.size(), actual.size());
    for (int b = 0; b < expected.size(); b++) {
      assertArrayEquals(expected.get(b), actual.get(b), "batch " + b);
    }
  }

  @Test
  void aDocumentOverTheBudgetIsRefusedOrTruncated() {
    int[][] docs = documents(3, 17, 2);
    AtomicBoolean closed = new AtomicBoolean();
    Reader<int[]> source = () -> new PipelineIterator<>() {
      final java.util.Iterator<int[]> it = List.of(docs).iterator();

      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public int[] next() {
        return it.next();
      }

      @Override
      public void close() {
        closed.set(true);
      }
    };
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TokenBudget.builder(16).build().batches(source).toList());
    assertEquals("document 1 (the 2nd in the pass) has 17 tokens, more than the budget of 16 tokens a batch: "
        + "Overlong.TRUNCATE keeps its first 16", e.getMessage());
    assertTrue(closed.get(), "the source's pass is closed when a document is refused");

    List<BudgetBatch> batches = TokenBudget.builder(16).overlong(TokenBudget.Overlong.TRUNCATE).build()
        .batches(reader(docs)).toList();
    // Sorted: d2(2) d0(3) d1(16): 2 x 3 = 6, then 3 x 16 = 48 > 16: d1 alone, 1 x 16.
    assertBatchesEqual(List.of(new long[] {2, 0}, new long[] {1}), documentsOf(batches));
    int[] cut = new int[16];
    for (int t = 0; t < 16; t++) {
      cut[t] = 101 + t;
    }
    assertArrayEquals(cut, batches.get(1).ids());
  }

  @Test
  void emptyDocumentsTakeOnePosition() {
    // Three empty documents and a 2: sorted d0 d1 d3 (0) then d2 (2); 3 x 1 = 3, then 4 x 2 = 8 > 4.
    List<BudgetBatch> batches = TokenBudget.builder(4).build().batches(reader(documents(0, 0, 2, 0))).toList();
    assertBatchesEqual(List.of(new long[] {0, 1, 3}, new long[] {2}), documentsOf(batches));
    assertEquals(1, batches.get(0).width());
    assertArrayEquals(new int[] {0, 0, 0}, batches.get(0).mask());
    assertArrayEquals(new int[] {0, 0, 0}, batches.get(0).lengths());
  }

  @Test
  void overRandomLengthsEveryDocumentOnceNoBatchOverTheBudgetAndWindowsCutGreedily() {
    Random random = new Random(45);
    for (int trial = 0; trial < 200; trial++) {
      int budget = 1 + random.nextInt(300);
      int window = 1 + random.nextInt(40);
      int n = random.nextInt(120);
      int[] lengths = new int[n];
      for (int i = 0; i < n; i++) {
        lengths[i] = random.nextInt(4) == 0 ? random.nextInt(budget + 1) : random.nextInt(Math.max(1, budget / 8));
      }
      int[][] docs = documents(lengths);
      String what = "trial " + trial + ": B " + budget + ", W " + window + ", " + n + " documents";
      List<BudgetBatch> sorted = TokenBudget.builder(budget).window(window).build().batches(reader(docs)).toList();
      checkBatches(what, budget, docs, sorted);
      checkSortedWindowsCutGreedily(what, budget, window, lengths, sorted);

      long seed = random.nextLong();
      List<BudgetBatch> shuffled = TokenBudget.builder(budget).window(window).seed(seed).build().batches(reader(docs))
          .toList();
      checkBatches(what + ", shuffled", budget, docs, shuffled);
      // Each window holds the same batches as unshuffled, in some order.
      assertEquals(sorted.size(), shuffled.size(), what);
      int b = 0;
      while (b < sorted.size()) {
        long win = sorted.get(b).documents()[0] / window;
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        for (; b < sorted.size() && sorted.get(b).documents()[0] / window == win; b++) {
          expected.add(Arrays.toString(sorted.get(b).documents()));
          actual.add(Arrays.toString(shuffled.get(b).documents()));
        }
        expected.sort(null);
        actual.sort(null);
        assertEquals(expected, actual, what + ", window " + win);
      }
    }
  }

  /** No batch over the budget; every document once, its ids in its row, padding and mask after. */
  static void checkBatches(String what, int budget, int[][] docs, List<BudgetBatch> batches) {
    int[] seen = new int[docs.length];
    for (BudgetBatch b : batches) {
      assertTrue(b.rows() >= 1 && (long) b.rows() * b.width() <= budget,
          what + ": " + b.rows() + " x " + b.width() + " over " + budget);
      assertEquals((long) b.rows() * b.width(), b.positions(), what);
      int longest = 0;
      long real = 0;
      for (int r = 0; r < b.rows(); r++) {
        int d = (int) b.documents()[r];
        seen[d]++;
        int[] doc = docs[d];
        assertEquals(doc.length, b.lengths()[r], what + ": length of document " + d);
        longest = Math.max(longest, doc.length);
        real += doc.length;
        for (int t = 0; t < b.width(); t++) {
          int at = r * b.width() + t;
          assertEquals(t < doc.length ? doc[t] : 0, b.ids()[at], what + ": document " + d + " at " + t);
          assertEquals(t < doc.length ? 1 : 0, b.mask()[at], what + ": mask of document " + d + " at " + t);
        }
      }
      assertEquals(Math.max(1, longest), b.width(), what + ": width is the longest row");
      assertEquals(real, b.realTokens(), what);
    }
    for (int d = 0; d < docs.length; d++) {
      assertEquals(1, seen[d], what + ": document " + d + " appears " + seen[d] + " times");
    }
  }

  /**
   * Unshuffled: the batches of each window, one after the other, are its documents sorted by length
   * (ties by index), and each batch but a window's last could not take the next document.
   */
  static void checkSortedWindowsCutGreedily(String what, int budget, int window, int[] lengths,
      List<BudgetBatch> batches) {
    List<Integer> flat = new ArrayList<>();
    List<Integer> ends = new ArrayList<>();
    for (BudgetBatch b : batches) {
      for (long d : b.documents()) {
        flat.add((int) d);
      }
      ends.add(flat.size());
    }
    List<Integer> expected = new ArrayList<>();
    for (int from = 0; from < lengths.length; from += window) {
      List<Integer> w = new ArrayList<>();
      for (int i = from; i < Math.min(lengths.length, from + window); i++) {
        w.add(i);
      }
      w.sort((x, y) -> lengths[x] != lengths[y] ? Integer.compare(lengths[x], lengths[y]) : Integer.compare(x, y));
      expected.addAll(w);
    }
    assertEquals(expected, flat, what + ": sorted windows");
    int start = 0;
    for (int b = 0; b < batches.size(); b++) {
      int end = ends.get(b);
      int win = flat.get(start) / window;
      for (int k = start; k < end; k++) {
        assertEquals(win, flat.get(k) / window, what + ": batch " + b + " lies in one window");
      }
      if (end < flat.size() && flat.get(end) / window == win) {
        // The next document of the same window would have broken the budget.
        int wider = Math.max(batches.get(b).width(), Math.max(1, lengths[flat.get(end)]));
        assertTrue((long) (batches.get(b).rows() + 1) * wider > budget,
            what + ": batch " + b + " could take document " + flat.get(end));
      }
      start = end;
    }
  }

  @Test
  void batchesOfATokenShardSetAreItsDocumentsUnderTheirDocIds() throws IOException {
    String set = TokenizersTest.sonnetSet(dir);
    List<String> lines = Files.readAllLines(dir.resolve("sonnets.txt"));
    Tokenizer cl100k = Tokenizers.cl100k();
    int[][] docs = new int[lines.size()][];
    for (int d = 0; d < docs.length; d++) {
      docs[d] = cl100k.encode(lines.get(d));
    }
    TokenBudget budget = TokenBudget.builder(64).window(16).seed(3).build();
    List<BudgetBatch> batches;
    try (ShardProvider p = ShardProvider.builder(set).batchSize(5).readers(2).build()) {
      batches = budget.batches(p).toList();
    }
    checkBatches("sonnets", 64, docs, batches);
    // Read in order, the set's documents are the lines: the same batches as from the lines themselves.
    assertBatchesEqual(documentsOf(budget.batches(reader(docs)).toList()), documentsOf(batches));
  }

  @Test
  void settingsAreChecked() {
    assertFalse(TokenBudget.builder(8).build().toString().isEmpty());
    assertEquals(8, TokenBudget.builder(8).build().tokens());
    assertThrows(IllegalArgumentException.class, () -> TokenBudget.builder(0));
    assertThrows(IllegalArgumentException.class, () -> TokenBudget.builder(8).window(0));
    assertNotEquals(TokenBudget.builder(8).build().toString(), TokenBudget.builder(8).seed(1).build().toString());
  }
}
