package dev.minibatch.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.shards.ShardProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packing against rows worked out by hand from the rules in {@link Packing}, and, over random
 * document lengths, against the documents themselves: every token of every document exactly once,
 * in order, with segments, positions, boundaries, mask and labels that agree with them.
 */
class PackingTest {
  static final int I = Packing.IGNORE;

  @TempDir Path dir;

  static List<PackedRow> pack(Packing packing, int[]... docs) {
    return packing.rows(() -> PipelineIterator.of(List.of(docs).iterator())).toList();
  }

  static void assertRow(PackedRow row, int[] ids, int[] segments, int[] positions, int[] mask, int[] boundaries,
      long[] documents, int[] offsets) {
    assertArrayEquals(ids, row.ids(), "ids");
    assertArrayEquals(segments, row.segmentIds(), "segment ids");
    assertArrayEquals(positions, row.positionIds(), "position ids");
    assertArrayEquals(mask, row.lossMask(), "loss mask");
    assertArrayEquals(boundaries, row.boundaries(), "boundaries");
    assertEquals(documents.length, row.segments());
    for (int s = 0; s < documents.length; s++) {
      assertEquals(documents[s], row.document(s), "document of segment " + s);
      assertEquals(offsets[s], row.documentOffset(s), "offset of segment " + s);
    }
  }

  @Test
  void concatenateCutsTheStreamWithSeparatorsIntoRows() {
    Packing packing = Packing.builder(4).concatenate().separator(9).shiftLabels(true).build();
    // The stream: 1 2 3 9 | 4 9 5 6 | 7 8 10 9 | 11 9 and two padded positions.
    List<PackedRow> rows = pack(packing, new int[] {1, 2, 3}, new int[] {4}, new int[] {5, 6, 7, 8, 10},
        new int[] {11});
    assertEquals(4, rows.size());
    assertRow(rows.get(0), new int[] {1, 2, 3, 9}, new int[] {1, 1, 1, 1}, new int[] {0, 1, 2, 3},
        new int[] {1, 1, 1, 1}, new int[] {0, 4}, new long[] {0}, new int[] {0});
    assertArrayEquals(new int[] {2, 3, 9, I}, rows.get(0).labels());
    assertRow(rows.get(1), new int[] {4, 9, 5, 6}, new int[] {1, 1, 2, 2}, new int[] {0, 1, 0, 1},
        new int[] {1, 1, 1, 1}, new int[] {0, 2, 4}, new long[] {1, 2}, new int[] {0, 0});
    // The label of 6 is 7, the document's next token, which starts the next row.
    assertArrayEquals(new int[] {9, I, 6, 7}, rows.get(1).labels());
    assertRow(rows.get(2), new int[] {7, 8, 10, 9}, new int[] {1, 1, 1, 1}, new int[] {0, 1, 2, 3},
        new int[] {1, 1, 1, 1}, new int[] {0, 4}, new long[] {2}, new int[] {2});
    assertArrayEquals(new int[] {8, 10, 9, I}, rows.get(2).labels());
    assertRow(rows.get(3), new int[] {11, 9, 0, 0}, new int[] {1, 1, 0, 0}, new int[] {0, 1, 0, 0},
        new int[] {1, 1, 0, 0}, new int[] {0, 2}, new long[] {3}, new int[] {0});
    assertArrayEquals(new int[] {9, I, I, I}, rows.get(3).labels());
    assertEquals(2, rows.get(3).realTokens());
  }

  static final int[] A = {1, 2, 3, 4, 5};
  static final int[] B = {11, 12, 13, 14};
  static final int[] C = {21, 22, 23};
  static final int[] D = {31, 32};
  static final int[] E = {41, 42, 43, 44, 45, 46};
  static final int[] F = {51};

  @Test
  void bestFitPlacesEachDocumentInTheTightestOpenRow() {
    // L 8, two rows open. A opens r0 (3 free); B does not fit r0, opens r1 (4 free); C fits both, goes
    // to r0 (3 free, the tighter), which is full and complete; D goes to r1 (2 free left); E opens r2;
    // F fits r1 and r2 (2 free each): r1, opened earlier. At the end r1, then r2.
    Packing packing = Packing.builder(8).bestFit(2).shiftLabels(true).padding(-1).build();
    List<PackedRow> rows = pack(packing, A, B, C, D, E, F);
    assertEquals(3, rows.size());
    assertRow(rows.get(0), new int[] {1, 2, 3, 4, 5, 21, 22, 23}, new int[] {1, 1, 1, 1, 1, 2, 2, 2},
        new int[] {0, 1, 2, 3, 4, 0, 1, 2}, new int[] {1, 1, 1, 1, 1, 1, 1, 1}, new int[] {0, 5, 8}, new long[] {0, 2},
        new int[] {0, 0});
    assertArrayEquals(new int[] {2, 3, 4, 5, I, 22, 23, I}, rows.get(0).labels());
    assertRow(rows.get(1), new int[] {11, 12, 13, 14, 31, 32, 51, -1}, new int[] {1, 1, 1, 1, 2, 2, 3, 0},
        new int[] {0, 1, 2, 3, 0, 1, 0, 0}, new int[] {1, 1, 1, 1, 1, 1, 1, 0}, new int[] {0, 4, 6, 7},
        new long[] {1, 3, 5}, new int[] {0, 0, 0});
    assertArrayEquals(new int[] {12, 13, 14, I, 32, I, I, I}, rows.get(1).labels());
    assertRow(rows.get(2), new int[] {41, 42, 43, 44, 45, 46, -1, -1}, new int[] {1, 1, 1, 1, 1, 1, 0, 0},
        new int[] {0, 1, 2, 3, 4, 5, 0, 0}, new int[] {1, 1, 1, 1, 1, 1, 0, 0}, new int[] {0, 6}, new long[] {4},
        new int[] {0});
  }

  @Test
  void bestFitHandsOutTheEarliestRowWhenTheWindowOverflows() {
    // One row open: B opens r1, so r0 (A) is complete; C joins r1; D opens r2, so r1 (B C) is
    // complete; E fills r2 exactly (complete); F opens r3, complete at the end.
    Packing packing = Packing.builder(8).bestFit(1).build();
    List<PackedRow> rows = pack(packing, A, B, C, D, E, F);
    assertEquals(4, rows.size());
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 0, 0, 0}, rows.get(0).ids());
    assertArrayEquals(new int[] {11, 12, 13, 14, 21, 22, 23, 0}, rows.get(1).ids());
    assertArrayEquals(new int[] {31, 32, 41, 42, 43, 44, 45, 46}, rows.get(2).ids());
    assertArrayEquals(new int[] {51, 0, 0, 0, 0, 0, 0, 0}, rows.get(3).ids());
    assertArrayEquals(new int[] {0, 4, 7}, rows.get(1).boundaries());
  }

  @Test
  void splitCutsAnOverlongDocumentIntoFullRowsAndPlacesItsTail() {
    Packing packing = Packing.builder(4).bestFit(2).overlong(Packing.Overlong.SPLIT).shiftLabels(true).build();
    List<PackedRow> rows = pack(packing, new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, new int[] {20});
    assertEquals(3, rows.size());
    assertRow(rows.get(0), new int[] {1, 2, 3, 4}, new int[] {1, 1, 1, 1}, new int[] {0, 1, 2, 3},
        new int[] {1, 1, 1, 1}, new int[] {0, 4}, new long[] {0}, new int[] {0});
    assertArrayEquals(new int[] {2, 3, 4, 5}, rows.get(0).labels());
    assertRow(rows.get(1), new int[] {5, 6, 7, 8}, new int[] {1, 1, 1, 1}, new int[] {0, 1, 2, 3},
        new int[] {1, 1, 1, 1}, new int[] {0, 4}, new long[] {0}, new int[] {4});
    assertArrayEquals(new int[] {6, 7, 8, 9}, rows.get(1).labels());
    assertRow(rows.get(2), new int[] {9, 10, 20, 0}, new int[] {1, 1, 2, 0}, new int[] {0, 1, 0, 0},
        new int[] {1, 1, 1, 0}, new int[] {0, 2, 3}, new long[] {0, 1}, new int[] {8, 0});
    assertArrayEquals(new int[] {10, I, I, I}, rows.get(2).labels());
  }

  @Test
  void refuseNamesTheDocumentAndTheLengths() {
    Packer packer = Packing.builder(4).bestFit(2).separator(0).build().packer();
    packer.add(new int[] {1, 2, 3}); // 4 with its separator: fits
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> packer.add(new int[] {9, 9, 1, 2, 3, 4, 9}, 2, 4, 17));
    assertEquals("document 17 (the 2nd in the stream) has 5 tokens with its separator, more than the context length 4:"
        + " best fit packs whole documents; Overlong.SPLIT cuts it into rows of 4", e.getMessage());
    // The refused document is not counted: the next is the 2nd, document 1.
    packer.add(new int[] {5});
    packer.finish();
    PackedRow row = new PackedRow(4);
    assertTrue(packer.next(row));
    assertArrayEquals(new int[] {1, 2, 3, 0}, row.ids());
    assertTrue(packer.next(row));
    assertEquals(1, row.document(0));
    assertFalse(packer.next(row));
    // Through a reader the pass is closed when the document is refused.
    boolean[] closed = {false};
    Reader<int[]> docs = () -> new PipelineIterator<>() {
      int i;

      @Override
      public boolean hasNext() {
        return i < 2;
      }

      @Override
      public int[] next() {
        return new int[++i * 3];
      }

      @Override
      public void close() {
        closed[0] = true;
      }
    };
    PipelineIterator<PackedRow> rows = Packing.builder(4).bestFit(1).build().rows(docs).iterator();
    e = assertThrows(IllegalArgumentException.class, rows::hasNext);
    assertTrue(e.getMessage().startsWith("document 1 (the 2nd in the stream) has 6 tokens, more than the context length 4"),
        e.getMessage());
    assertTrue(closed[0]);
  }

  @Test
  void aRowOfAnotherLengthIsRefusedAndTheRowKept() {
    Packer packer = Packing.builder(4).build().packer();
    packer.add(new int[] {1, 2});
    packer.finish();
    assertEquals("a row of 5 positions cannot hold a row packed to the context length 4: make it with new PackedRow(4)",
        assertThrows(IllegalArgumentException.class, () -> packer.next(new PackedRow(5))).getMessage());
    PackedRow row = new PackedRow(4);
    assertTrue(packer.next(row));
    assertArrayEquals(new int[] {1, 2, 0, 0}, row.ids());
  }

  @Test
  void labelsAreAskedFor() {
    PackedRow row = pack(Packing.builder(4).build(), new int[] {1}).get(0);
    assertEquals("no labels in this row: build the packing with shiftLabels(true)",
        assertThrows(IllegalStateException.class, row::labels).getMessage());
  }

  /** A document's token {@code k} is {@code 100_000 * (d + 1) + k}: its document and place in the value. */
  static int[][] randomDocuments(Random random, int count, int maxLength) {
    int[][] docs = new int[count][];
    for (int d = 0; d < count; d++) {
      int n = random.nextInt(10) == 0 ? 0 : random.nextInt(maxLength + 1);
      docs[d] = new int[n];
      for (int k = 0; k < n; k++) {
        docs[d][k] = 100_000 * (d + 1) + k;
      }
    }
    return docs;
  }

  @Test
  void everyTokenOfEveryDocumentOnceInOrderOverRandomLengths() {
    Random random = new Random(45);
    for (int trial = 0; trial < 300; trial++) {
      int length = 1 + random.nextInt(40);
      int[][] docs = randomDocuments(random, random.nextInt(60), random.nextInt(3) == 0 ? 3 * length : length);
      Packing.Builder b = Packing.builder(length).shiftLabels(true).padding(-7);
      int separator = random.nextBoolean() ? 1 : -1;
      if (separator >= 0) {
        b.separator(separator);
      }
      boolean concatenate = random.nextBoolean();
      if (!concatenate) {
        b.bestFit(1 + random.nextInt(8)).overlong(Packing.Overlong.SPLIT);
      }
      Packing packing = b.build();
      String what = "trial " + trial + ": " + packing;
      checkExactlyOnce(what, length, separator, concatenate, docs, pack(packing, docs));
    }
  }

  /** Checks rows against the documents, from the token values (see {@link #randomDocuments}) and the boundaries. */
  static void checkExactlyOnce(String what, int length, int separator, boolean concatenate, int[][] docs,
      List<PackedRow> rows) {
    Map<Long, List<Integer>> seen = new HashMap<>();
    long real = 0;
    for (int r = 0; r < rows.size(); r++) {
      PackedRow row = rows.get(r);
      String at = what + ", row " + r;
      int[] bounds = row.boundaries();
      assertEquals(0, bounds[0], at);
      assertEquals(row.realTokens(), bounds[bounds.length - 1], at);
      assertTrue(row.realTokens() > 0, at + ": an empty row");
      if (concatenate && r < rows.size() - 1) {
        assertEquals(length, row.realTokens(), at + ": only the last row of a concatenation has padding");
      }
      for (int s = 0; s < row.segments(); s++) {
        long doc = row.document(s);
        List<Integer> tokens = seen.computeIfAbsent(doc, d -> new ArrayList<>());
        assertEquals(tokens.size(), row.documentOffset(s), at + ": segment " + s + " continues its document");
        assertTrue(bounds[s + 1] > bounds[s], at + ": an empty segment");
        for (int i = bounds[s]; i < bounds[s + 1]; i++) {
          int id = row.ids()[i];
          int k = tokens.size();
          if (id != separator) {
            assertEquals(doc, id / 100_000 - 1, at + ", position " + i + ": the segment's document");
            assertEquals(k, id % 100_000, at + ", position " + i + ": the document's next token");
          }
          assertEquals(s + 1, row.segmentIds()[i], at + ", position " + i);
          assertEquals(k - row.documentOffset(s), row.positionIds()[i], at + ", position " + i);
          assertEquals(1, row.lossMask()[i], at + ", position " + i);
          int[] doc1 = docs[(int) doc];
          int m = doc1.length + (separator >= 0 ? 1 : 0);
          int expectedLabel = k + 1 >= m ? Packing.IGNORE : k + 1 < doc1.length ? doc1[k + 1] : separator;
          assertEquals(expectedLabel, row.labels()[i], at + ", position " + i + ": label");
          tokens.add(id);
        }
      }
      for (int i = row.realTokens(); i < length; i++) {
        assertEquals(-7, row.ids()[i], at);
        assertEquals(0, row.segmentIds()[i], at);
        assertEquals(0, row.positionIds()[i], at);
        assertEquals(0, row.lossMask()[i], at);
        assertEquals(Packing.IGNORE, row.labels()[i], at);
      }
      real += row.realTokens();
    }
    long expectedReal = 0;
    for (int d = 0; d < docs.length; d++) {
      List<Integer> expected = new ArrayList<>();
      for (int id : docs[d]) {
        expected.add(id);
      }
      if (separator >= 0) {
        expected.add(separator);
      }
      expectedReal += expected.size();
      assertEquals(expected, seen.getOrDefault((long) d, List.of()), what + ": document " + d);
    }
    assertEquals(expectedReal, real, what + ": real tokens");
    assertEquals(docs.length, seen.size() + (int) java.util.Arrays.stream(docs)
        .filter(doc -> doc.length == 0 && separator < 0).count(), what + ": documents");
  }

  @Test
  void theSameRowsForOneAndThreeReaderThreadsOfATokenShardSet() throws IOException {
    String set = TokenizersTest.sonnetSet(dir);
    List<String> lines = Files.readAllLines(dir.resolve("sonnets.txt"));
    Tokenizer cl100k = Tokenizers.cl100k();
    Packing packing = Packing.builder(32).bestFit(4).overlong(Packing.Overlong.SPLIT).separator(100_257)
        .shiftLabels(true).build();

    List<List<PackedRow>> byReaders = new ArrayList<>();
    for (int readers : new int[] {1, 3}) {
      try (ShardProvider p = ShardProvider.builder(set).batchSize(5).shuffle(true).seed(11).readers(readers).build()) {
        byReaders.add(packing.rows(p).toList());
      }
    }
    List<PackedRow> one = byReaders.get(0);
    List<PackedRow> three = byReaders.get(1);
    assertEquals(one.size(), three.size());
    for (int r = 0; r < one.size(); r++) {
      assertArrayEquals(one.get(r).ids(), three.get(r).ids(), "row " + r);
      assertArrayEquals(one.get(r).labels(), three.get(r).labels(), "row " + r);
      assertArrayEquals(one.get(r).boundaries(), three.get(r).boundaries(), "row " + r);
      for (int s = 0; s < one.get(r).segments(); s++) {
        assertEquals(one.get(r).document(s), three.get(r).document(s), "row " + r);
      }
    }
    // Every line's ids, and its separator, exactly once and in order, under its doc id.
    Map<Long, List<Integer>> seen = new HashMap<>();
    for (PackedRow row : one) {
      for (int s = 0; s < row.segments(); s++) {
        List<Integer> ids = seen.computeIfAbsent(row.document(s), d -> new ArrayList<>());
        assertEquals(ids.size(), row.documentOffset(s));
        for (int i = row.boundary(s); i < row.boundary(s + 1); i++) {
          ids.add(row.ids()[i]);
        }
      }
    }
    assertEquals(lines.size(), seen.size());
    for (int d = 0; d < lines.size(); d++) {
      List<Integer> expected = new ArrayList<>();
      for (int id : cl100k.encode(lines.get(d))) {
        expected.add(id);
      }
      expected.add(100_257);
      assertEquals(expected, seen.get((long) d), "line " + (d + 1));
    }
  }

  @Test
  void settingsAreChecked() {
    assertFalse(Packing.builder(8).build().toString().isEmpty());
    assertThrows(IllegalArgumentException.class, () -> Packing.builder(0));
    assertThrows(IllegalArgumentException.class, () -> Packing.builder(8).bestFit(0));
    assertThrows(IllegalArgumentException.class, () -> Packing.builder(8).separator(-1));
  }
}
