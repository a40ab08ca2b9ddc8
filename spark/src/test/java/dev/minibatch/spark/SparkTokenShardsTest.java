package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.text.Documents;
import dev.minibatch.text.TokenShards;
import dev.minibatch.text.Tokenizer;
import dev.minibatch.text.Tokenizers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Token shard sets written by Spark's executors: the same documents tokenised locally by {@link
 * TokenShards} and from a DataFrame give the same tokens per document (read back through {@link
 * ShardProvider}, whatever the files), and both agree with the tokeniser run here on each text.
 */
class SparkTokenShardsTest {
  private static SparkSession spark;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** 41 documents: prose of varied length, an empty one, non-ASCII text, a special token's spelling. */
  private static List<String> documents() {
    List<String> texts = new ArrayList<>();
    Random r = new Random(3);
    String[] words = {"the", "minibatch", "shard", "Spark", "executor", "token", "naïve", "日本語", "über", "42", "—", "\n"};
    for (int i = 0; i < 38; i++) {
      StringBuilder b = new StringBuilder();
      int n = r.nextInt(60);
      for (int w = 0; w < n; w++) {
        b.append(words[r.nextInt(words.length)]).append(w % 7 == 6 ? ". " : " ");
      }
      texts.add(b.toString());
    }
    texts.add("");
    texts.add("<|endoftext|> is text here, not the special token");
    texts.add("a");
    return texts;
  }

  /** Each document read back, by its id, in the set's order. */
  private static Map<Long, int[]> readBack(String set) {
    Map<Long, int[]> docs = new LinkedHashMap<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(6).build()) {
      for (NamedBatch b : p) {
        INDArray tokens = b.get(TokenShards.TOKENS);
        INDArray lengths = b.lengths(TokenShards.TOKENS);
        INDArray ids = b.get(TokenShards.DOC);
        for (int r = 0; r < b.countSamples(); r++) {
          int[] t = new int[lengths.getInt(r)];
          for (int i = 0; i < t.length; i++) {
            t[i] = tokens.getInt(r, i);
          }
          assertTrue(docs.put(ids.getLong(r), t) == null, "document " + ids.getLong(r) + " twice");
        }
      }
    }
    return docs;
  }

  private static void assertSameDocuments(Map<Long, int[]> expected, Map<Long, int[]> got) {
    assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(got.keySet()));
    for (Map.Entry<Long, int[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), got.get(e.getKey()), "document " + e.getKey());
    }
  }

  @Test
  void theDataFramesDocumentsGetTheTokensTheLocalWriterAndTheTokenizerGive() {
    List<String> texts = documents();
    Tokenizer cl100k = Tokenizers.cl100k();
    long tokens = 0;
    Map<Long, int[]> direct = new LinkedHashMap<>();
    for (int i = 0; i < texts.size(); i++) {
      int[] t = cl100k.encode(texts.get(i));
      direct.put((long) i, t);
      tokens += t.length;
    }
    assertEquals(0, direct.get(38L).length);
    assertTrue(tokens > 400, "premise: a corpus of some size, " + tokens + " tokens");

    String local = dir.resolve("local").toString();
    TokenShards.Written written = TokenShards.builder().writer(ShardWriter.builder().samplesPerFile(7).build()).build()
        .write(Documents.of(texts), local);
    assertEquals(tokens, written.tokens());

    List<Row> rows = texts.stream().map(t -> RowFactory.create(t)).toList();
    Dataset<Row> df = spark.createDataFrame(rows, new StructType().add("body", DataTypes.StringType));
    assertEquals(2, df.javaRDD().getNumPartitions(), "premise: documents in two partitions, numbered across them");
    String fromSpark = dir.resolve("spark").toString();
    TokenShards.Written w = SparkTokenShards.builder().writer(ShardWriter.builder().samplesPerFile(5).build()).build()
        .write(df, "body", fromSpark);
    assertEquals(tokens, w.tokens());
    assertEquals(texts.size(), w.shards().samples());
    assertSameDocuments(direct, readBack(fromSpark));
    assertSameDocuments(readBack(local), readBack(fromSpark));
  }

  @Test
  void anIdColumnOrdersAndNamesTheDocumentsWhateverThePartitions() {
    List<String> texts = documents();
    List<Row> rows = new ArrayList<>();
    Map<Long, int[]> direct = new java.util.TreeMap<>();
    long tokens = 0;
    for (int i = 0; i < texts.size(); i++) {
      long id = 1000 + 7L * i;
      rows.add(RowFactory.create(id, texts.get(i)));
      int[] t = Tokenizers.cl100k().encode(texts.get(i));
      direct.put(id, t);
      tokens += t.length;
    }
    Collections.shuffle(rows, new Random(9));
    StructType schema = new StructType().add("id", DataTypes.LongType).add("text", DataTypes.StringType);
    Dataset<Row> df = spark.createDataFrame(rows, schema).repartition(3);
    String fromSpark = dir.resolve("spark").toString();
    TokenShards.Written w = SparkTokenShards.builder().tokenizer("cl100k_base").idColumn("id").build()
        .write(df, "text", fromSpark);
    assertEquals(tokens, w.tokens());
    assertEquals(texts.size(), w.shards().samples());
    assertSameDocuments(new LinkedHashMap<>(direct), readBack(fromSpark)); // in id order
  }

  @Test
  void badInputIsNamed() {
    StructType schema = new StructType().add("id", DataTypes.IntegerType).add("text", DataTypes.StringType);
    Dataset<Row> nullText = spark.createDataFrame(List.of(RowFactory.create(4, "a"), RowFactory.create(9, null)), schema);
    SparkSampleException e = assertThrows(SparkSampleException.class, () -> SparkTokenShards.builder().idColumn("id")
        .build().write(nullText, "text", dir.resolve("a").toString()));
    assertEquals("document id 9: text column 'text' is null", e.getMessage());
    SparkSampleException noId = assertThrows(SparkSampleException.class, () -> SparkTokenShards.builder().build()
        .write(nullText.coalesce(1), "text", dir.resolve("b").toString()));
    assertEquals("document 1: text column 'text' is null", noId.getMessage());
    Dataset<Row> twice = spark.createDataFrame(List.of(RowFactory.create(4, "a"), RowFactory.create(4, "b")), schema);
    SparkSampleException dup = assertThrows(SparkSampleException.class, () -> SparkTokenShards.builder().idColumn("id")
        .build().write(twice, "text", dir.resolve("c").toString()));
    assertEquals("document id 4: the id appears twice in idColumn 'id'; each document needs an id of its own",
        dup.getMessage());
    IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> SparkTokenShards.builder()
        .build().write(nullText, "id", dir.resolve("d").toString()));
    assertEquals("text column 'id' has type int, expected string", type.getMessage());
    IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
        () -> SparkTokenShards.builder().tokenizer("gpt2"));
    assertTrue(name.getMessage().startsWith("no bundled tokeniser 'gpt2'"), name.getMessage());
  }
}
