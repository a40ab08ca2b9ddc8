package dev.minibatch.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The bundled tokenisers against ids published by others: OpenAI's tiktoken tests
 * ({@code tests/test_encoding.py}: cl100k_base "hello world", the thumbs-up emoji, "today\n \n") and
 * the o200k_base "hello world" that tiktoken ports assert; the vocabulary sizes are tiktoken's
 * {@code n_vocab} (100 277 and 200 019).
 */
class TokenizersTest {
  @Test
  void cl100kGivesTiktokensIds() {
    Tokenizer t = Tokenizers.cl100k();
    assertEquals("cl100k_base", t.name());
    assertArrayEquals(new int[] {15339, 1917}, t.encode("hello world"));
    assertEquals("hello world", t.decode(new int[] {15339, 1917}));
    assertArrayEquals(new int[] {9468, 239, 235}, t.encode("\uD83D\uDC4D"));
    assertArrayEquals(new int[] {31213, 27907}, t.encode("today\n \n"));
    assertArrayEquals(new int[0], t.encode(""));
    assertEquals(100_277, t.vocabularySize());
  }

  @Test
  void o200kGivesTiktokensIds() {
    Tokenizer t = Tokenizers.o200k();
    assertEquals("o200k_base", t.name());
    assertArrayEquals(new int[] {24912, 2375}, t.encode("hello world"));
    assertEquals(200_019, t.vocabularySize());
  }

  @Test
  void aSpecialTokensTextIsOrdinaryText() {
    // tiktoken encodes it as the one id 100257 only when asked to (allowed_special); a corpus quoting
    // it holds text.
    Tokenizer t = Tokenizers.cl100k();
    int[] ids = t.encode("hello <|endoftext|>");
    assertFalse(Arrays.stream(ids).anyMatch(id -> id == 100_257), Arrays.toString(ids));
    assertTrue(ids.length > 3, Arrays.toString(ids));
    assertEquals("hello <|endoftext|>", t.decode(ids));
  }

  @Test
  void decodeOfEncodeIsTheTextForARealText() throws IOException {
    String sonnets = resource("sonnets.txt");
    String mixed = "na\u00efve caf\u00e9 \u2014 \u6771\u4eac \uD83D\uDC4D\ttabs\r\nand  spaces ";
    for (Tokenizer t : new Tokenizer[] {Tokenizers.cl100k(), Tokenizers.o200k()}) {
      for (String s : new String[] {sonnets, mixed}) {
        int[] ids = t.encode(s);
        assertEquals(s, t.decode(ids), t.name());
        assertTrue(Arrays.stream(ids).allMatch(id -> id >= 0 && id < t.vocabularySize()), t.name());
        // A byte-pair encoding of English verse: well under one id per character, over one per 8.
        assertTrue(ids.length < s.length() && ids.length > s.length() / 8, t.name() + ": " + ids.length);
      }
    }
  }

  @Test
  void namedFindsTheBundledOnesAndNamesThemOtherwise() {
    assertSame(Tokenizers.cl100k(), Tokenizers.named("cl100k_base"));
    assertSame(Tokenizers.o200k(), Tokenizers.named("O200K"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Tokenizers.named("gpt2"));
    assertEquals("no bundled tokeniser 'gpt2': the bundled ones are [cl100k_base, o200k_base]", e.getMessage());
  }

  @Test
  void anIdOutsideTheVocabularyIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Tokenizers.cl100k().decode(new int[] {15339, 100_277}));
    assertTrue(e.getMessage().contains("id 100277 at 1 (ids are 0 to 100276)"), e.getMessage());
  }

  static String resource(String name) throws IOException {
    try (InputStream in = TokenizersTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * The bundled sonnets written to {@code dir}/sonnets.txt and, a document per line, as the token
   * shard set {@code dir}/set of files of 10 documents; returns the set's path.
   */
  static String sonnetSet(java.nio.file.Path dir) throws IOException {
    java.nio.file.Path corpus = dir.resolve("sonnets.txt");
    java.nio.file.Files.writeString(corpus, resource("sonnets.txt"));
    String set = dir.resolve("set").toString();
    TokenShards.builder().writer(dev.minibatch.shards.ShardWriter.builder().samplesPerFile(10).build()).build()
        .write(Documents.lines(corpus), set);
    return set;
  }
}
