package dev.minibatch.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Documents written as a shard set and read back with {@code ShardProvider}: every document's ids
 * decode to its text, its doc id is its index in the source, and the files are the same for any
 * number of reader threads. The text is three of Shakespeare's sonnets (public domain; see
 * {@code ATTRIBUTION.md} beside it).
 */
class TokenShardsTest {
  @TempDir Path dir;

  /** One document read back: its doc id and ids. */
  record Row(long doc, int[] ids) {}

  static List<Row> readBack(String set) {
    List<Row> rows = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(5).build()) {
      assertEquals(DType.INT32, p.provideData().get(0).dtype());
      assertEquals(DType.INT64, p.provideData().get(1).dtype());
      for (NamedBatch b : p) {
        INDArray tokens = b.get("tokens");
        INDArray lengths = b.lengths("tokens");
        INDArray docs = b.get("doc");
        for (int r = 0; r < b.countSamples(); r++) {
          int n = lengths.getInt(r);
          int[] ids = new int[n];
          for (int i = 0; i < n; i++) {
            ids[i] = tokens.getInt(r, i);
          }
          rows.add(new Row(docs.getLong(r), ids));
        }
      }
    }
    return rows;
  }

  Path sonnets() throws IOException {
    Path file = dir.resolve("sonnets.txt");
    Files.writeString(file, TokenizersTest.resource("sonnets.txt"));
    return file;
  }

  @Test
  void everyLineIsADocumentWithItsIdsAndIndex() throws IOException {
    Path file = sonnets();
    List<String> lines = Files.readAllLines(file);
    assertEquals(44, lines.size());
    String set = dir.resolve("set").toString();
    TokenShards.Written w = TokenShards.builder().readers(2)
        .writer(ShardWriter.builder().samplesPerFile(10).build()).build().write(Documents.lines(file), set);
    assertEquals(44, w.shards().samples());
    assertEquals(5, w.shards().files());

    List<Row> rows = readBack(set);
    assertEquals(44, rows.size());
    Tokenizer cl100k = Tokenizers.cl100k();
    long tokens = 0;
    for (int i = 0; i < rows.size(); i++) {
      assertEquals(i, rows.get(i).doc());
      assertEquals(lines.get(i), cl100k.decode(rows.get(i).ids()), "document " + i);
      assertArrayEquals(cl100k.encode(lines.get(i)), rows.get(i).ids(), "document " + i);
      tokens += rows.get(i).ids().length;
    }
    // The two empty lines between the sonnets are documents of no token.
    assertEquals(0, rows.get(14).ids().length);
    assertEquals(0, rows.get(29).ids().length);
    assertEquals(tokens, w.tokens());
  }

  @Test
  void theFilesAreTheSameForAnyNumberOfReaders() throws IOException {
    Path file = sonnets();
    List<String> texts = new ArrayList<>();
    // Documents of very different lengths, so that threads finish out of order.
    String all = Files.readString(file);
    for (int i = 0; i < 300; i++) {
      texts.add(i % 7 == 0 ? all.repeat(1 + i % 3) : all.substring(0, (i * 37) % all.length()));
    }
    byte[][] first = null;
    for (int readers : new int[] {0, 1, 3}) {
      Path set = dir.resolve("set-" + readers);
      TokenShards.builder().tokenizer(Tokenizers.o200k()).readers(readers)
          .writer(ShardWriter.builder().samplesPerFile(64).build()).build().write(Documents.of(texts), set.toString());
      byte[][] bytes = contents(set);
      if (first == null) {
        first = bytes;
        assertEquals(6, bytes.length); // 5 files and the index
      } else {
        for (int f = 0; f < first.length; f++) {
          assertArrayEquals(first[f], bytes[f], "file " + f + " with " + readers + " readers");
        }
      }
      List<Row> rows = readBack(set.toString());
      for (int i = 0; i < texts.size(); i++) {
        assertEquals(texts.get(i), Tokenizers.o200k().decode(rows.get(i).ids()), "document " + i);
      }
    }
    assertTrue(tokenizeThreads().isEmpty(), tokenizeThreads().toString());
  }

  static byte[][] contents(Path set) throws IOException {
    try (Stream<Path> files = Files.list(set)) {
      List<Path> sorted = files.sorted().toList();
      byte[][] out = new byte[sorted.size()][];
      for (int i = 0; i < out.length; i++) {
        out[i] = Files.readAllBytes(sorted.get(i));
      }
      return out;
    }
  }

  static List<String> tokenizeThreads() {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
        .filter(n -> n.startsWith("minibatch-tokenize")).toList();
  }

  @Test
  void aDirectoryOfTextFilesIsOneDocumentPerFileInPathOrder() throws IOException {
    String[] sonnets = TokenizersTest.resource("sonnets.txt").split("\n\n");
    assertEquals(3, sonnets.length);
    Path texts = dir.resolve("texts");
    Files.createDirectories(texts.resolve("b"));
    Files.writeString(texts.resolve("b/130.txt"), sonnets[2]);
    Files.writeString(texts.resolve("a-018.txt"), sonnets[0]);
    Files.writeString(texts.resolve("a-116.txt"), sonnets[1]);
    Files.writeString(texts.resolve("notes.md"), "not a document");
    Documents docs = Documents.directory(texts);
    assertEquals(3, docs.count());
    String set = dir.resolve("set").toString();
    TokenShards.builder().build().write(docs, set);
    List<Row> rows = readBack(set);
    assertEquals(3, rows.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(sonnets[i], Tokenizers.cl100k().decode(rows.get(i).ids()));
    }
  }

  @Test
  void jsonLinesGiveTheirTextMember() throws IOException {
    Path file = dir.resolve("corpus.jsonl");
    Files.writeString(file, "{\"id\": 1, \"text\": \"hello world\", \"meta\": {\"text\": \"nested\"}}\n"
        + "{\"text\": \"caf\\u00e9 \\\"quoted\\\"\\nnext line\"}\r\n"
        + "{\"tags\": [\"a\", {\"b\": 2}], \"text\": \"\"}");
    String set = dir.resolve("set").toString();
    TokenShards.builder().readers(2).build().write(Documents.jsonLines(file, "text"), set);
    List<Row> rows = readBack(set);
    assertEquals(3, rows.size());
    assertArrayEquals(new int[] {15339, 1917}, rows.get(0).ids());
    assertEquals("caf\u00e9 \"quoted\"\nnext line", Tokenizers.cl100k().decode(rows.get(1).ids()));
    assertEquals(0, rows.get(2).ids().length);
  }

  @Test
  void aBadJsonLineIsNamedWithItsFileAndLine() throws IOException {
    String good = "{\"text\": \"fine\"}\n";
    String[][] cases = {
        {"{\"text\": \"unterminated}\n", "line 2: malformed JSON at column"},
        {"{\"body\": \"no text member\"}\n", "line 2: no member 'text', expected a JSON object with a string member 'text'"},
        {"{\"text\": 42}\n", "line 2: member 'text' is a number, expected a string"},
        {"   \n", "line 2: a blank line, expected a JSON object with a string member 'text'"},
        {"[\"text\"]\n", "line 2: not a JSON object, expected"},
        {"{\"text\": \"a\"} {\"text\": \"b\"}\n", "line 2: more after the JSON object"},
    };
    for (int readers : new int[] {0, 2}) {
      for (String[] c : cases) {
        Path file = dir.resolve("bad-" + readers + ".jsonl");
        Files.writeString(file, good + c[0] + good);
        Path set = dir.resolve("bad-set-" + readers);
        FileFormatException e = assertThrows(FileFormatException.class,
            () -> TokenShards.builder().readers(readers).build().write(Documents.jsonLines(file, "text"), set.toString()));
        assertEquals(file.toString(), e.file());
        assertTrue(e.getMessage().startsWith(file + ": " + c[1]), e.getMessage());
      }
    }
    assertTrue(tokenizeThreads().isEmpty(), tokenizeThreads().toString());
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("missing.txt");
    FileFormatException e = assertThrows(FileFormatException.class, () -> Documents.lines(missing));
    assertEquals(missing + ": no such file", e.getMessage());
    e = assertThrows(FileFormatException.class, () -> Documents.jsonLines(missing, "text"));
    assertEquals(missing + ": no such file", e.getMessage());
    e = assertThrows(FileFormatException.class, () -> Documents.files(List.of(missing)));
    assertEquals(missing + ": no such file", e.getMessage());
    e = assertThrows(FileFormatException.class, () -> Documents.directory(dir.resolve("nowhere")));
    assertEquals(dir.resolve("nowhere") + ": no such directory", e.getMessage());
  }

  @Test
  void aLineThatIsNotUtf8IsNamed() throws IOException {
    Path file = dir.resolve("latin1.txt");
    byte[] bad = "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1);
    byte[] good = "fine\n".getBytes(StandardCharsets.UTF_8);
    // 70 000 good lines first: the bad byte lies past the reader's first buffer of 64 KiB.
    try (var out = Files.newOutputStream(file)) {
      for (int i = 0; i < 70_000; i++) {
        out.write(good);
      }
      out.write(bad);
    }
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> TokenShards.builder().readers(2).build().write(Documents.lines(file), dir.resolve("set").toString()));
    assertTrue(e.getMessage().startsWith(file + ": line 70001: not UTF-8 text"), e.getMessage());
  }

  @Test
  void lineEndsAreNotText() throws IOException {
    Path file = dir.resolve("ends.txt");
    Files.writeString(file, "one\r\ntwo\rthree\n\nfive");
    List<String> texts = Documents.lines(file).reader().toList();
    assertEquals(List.of("one", "two", "three", "", "five"), texts);
  }

  @Test
  void noDocumentIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TokenShards.builder().build().write(Documents.of(List.of()), dir.resolve("set").toString()));
    assertTrue(e.getMessage().contains("no sample"), e.getMessage());
  }

  @Test
  void badSettingsAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TokenShards.builder().readers(-1));
    assertEquals("readers must be >= 0, got -1", e.getMessage());
  }

  @Test
  void longDocumentsAmongShortOnesAreBatchedWithinTheBound() {
    // 1 + 2 ids, then four of a million: 4 rows x 1 M fit the bound of 4 Mi padded ids, a fifth row would
    // not, so the fourth long one opens a batch that also takes the short one after it.
    List<int[]> docs = new ArrayList<>();
    docs.add(new int[] {1});
    docs.add(new int[] {2, 3});
    for (int i = 0; i < 4; i++) {
      docs.add(new int[1_000_000]);
    }
    docs.add(new int[] {4, 5, 6, 7, 8});
    TokenBatches b = new TokenBatches(docs.iterator());
    List<Integer> rows = new ArrayList<>();
    for (NamedBatch batch : b) {
      rows.add(batch.countSamples());
      assertTrue(batch.rows() * batch.get("tokens").size(1) <= TokenBatches.MAX_CELLS, Arrays.toString(batch.get("tokens").shape()));
    }
    assertEquals(List.of(4, 3), rows);
    assertEquals(7, b.documents());
    assertEquals(4_000_008, b.tokens());
  }
}
