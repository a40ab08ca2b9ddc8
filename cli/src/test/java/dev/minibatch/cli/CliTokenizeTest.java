package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tokenize} writes a shard set that {@code inspect} reads; the ids are tiktoken's published
 * cl100k_base ids for "hello world" ([15339, 1917]) and the doc ids run on across inputs.
 */
class CliTokenizeTest {
  @TempDir Path dir;

  @Test
  void tokenizeWritesASetThatInspectReads() throws Exception {
    Path jsonl = dir.resolve("corpus.jsonl");
    Files.writeString(jsonl, "{\"text\": \"hello world\"}\n{\"text\": \"\"}\n");
    Path lines = dir.resolve("lines.txt");
    Files.writeString(lines, "hello world\nhello world\n");
    Path set = dir.resolve("set");
    CliTest.Run r = CliTest.run("tokenize", "--readers", "2", "--lines", "--samples-per-file", "3", set.toString(),
        jsonl.toString(), lines.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("", r.err());
    assertTrue(r.out().startsWith("tokenized 4 documents into 6 tokens (cl100k_base, 1.5 a document) in "), r.out());
    assertTrue(r.out().contains("wrote shard set "), r.out());

    List<long[]> rows = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set.toString()).batchSize(4).build()) {
      for (NamedBatch b : p) {
        for (int i = 0; i < b.countSamples(); i++) {
          int n = b.lengths("tokens").getInt(i);
          long[] row = new long[n + 1];
          row[0] = b.get("doc").getLong(i);
          for (int k = 0; k < n; k++) {
            row[k + 1] = b.get("tokens").getInt(i, k);
          }
          rows.add(row);
        }
      }
    }
    assertEquals(4, rows.size());
    assertArrayEquals(new long[] {0, 15339, 1917}, rows.get(0));
    assertArrayEquals(new long[] {1}, rows.get(1));
    assertArrayEquals(new long[] {2, 15339, 1917}, rows.get(2));
    assertArrayEquals(new long[] {3, 15339, 1917}, rows.get(3));

    CliTest.Run inspect = CliTest.run("inspect", set.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(Pattern.compile("(?m)^samples: +4$").matcher(inspect.out()).find(), inspect.out());
    assertTrue(Pattern.compile("(?m)^files: +2$").matcher(inspect.out()).find(), inspect.out());
    assertTrue(Pattern.compile("(?m)^column tokens: +data, .*INT32").matcher(inspect.out()).find(), inspect.out());
    assertTrue(Pattern.compile("(?m)^column doc: +data, .*INT64").matcher(inspect.out()).find(), inspect.out());
  }

  @Test
  void aMalformedLineIsAnInputErrorNamingFileAndLine() throws Exception {
    Path jsonl = dir.resolve("bad.jsonl");
    Files.writeString(jsonl, "{\"text\": \"fine\"}\n{\"body\": \"no text\"}\n");
    CliTest.Run r = CliTest.run("tokenize", dir.resolve("set").toString(), jsonl.toString());
    assertEquals(Minibatch.ExitCode.INPUT, r.code(), r.out() + r.err());
    assertEquals("minibatch tokenize: " + jsonl + ": line 2: no member 'text', expected a JSON object with a string "
        + "member 'text'\n", r.err());
  }

  @Test
  void aMissingInputAndABadTokenizerAreNamed() {
    Path missing = dir.resolve("missing.txt");
    CliTest.Run r = CliTest.run("tokenize", dir.resolve("set").toString(), missing.toString());
    assertEquals(Minibatch.ExitCode.INPUT, r.code(), r.err());
    assertEquals("minibatch tokenize: " + missing + ": no such file\n", r.err());
    r = CliTest.run("tokenize", "--tokenizer", "gpt2", dir.resolve("set").toString(), missing.toString());
    assertEquals(Minibatch.ExitCode.USAGE, r.code(), r.err());
    assertTrue(r.err().startsWith("Invalid value for option '--tokenizer': no bundled tokeniser 'gpt2': the bundled "
        + "ones are [cl100k_base, o200k_base]"), r.err());
    r = CliTest.run("tokenize", "--readers", "0", dir.resolve("set").toString(), missing.toString());
    assertEquals(Minibatch.ExitCode.USAGE, r.code(), r.err());
  }
}
