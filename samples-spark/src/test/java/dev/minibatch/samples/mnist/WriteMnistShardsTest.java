package dev.minibatch.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark local[2] job writes a shard set of digits, read back in order: sample {@code i} is bundled
 * training digit {@code i mod 8000}, its pixels and label. Then the elastic run of docs/performance.md
 * on that set, at a small scale: four trainer processes, one killed, three resume.
 */
class WriteMnistShardsTest {
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void theJobWritesEveryDigitInIdOrderAndTrainersKilledAndResumedReadEachOnce(@TempDir Path dir) throws Exception {
    SparkSession spark = SparkSession.builder().master("local[2]").appName("WriteMnistShardsTest")
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1").getOrCreate();
    MnistData data = MnistData.bundled();
    List<MnistDigit> digits = data.train();
    int n = digits.size() + 500; // the last 500 rows repeat the first 500 digits
    try {
      WriteMnistShards.Options o = WriteMnistShards.Options.parse("--samples", String.valueOf(n), "--dir",
          dir.resolve("digits").toString(), "--samples-per-file", "1000", "--partitions", "3");
      WriteMnistShards.Report r = WriteMnistShards.write(spark, data, o);
      assertEquals(n, r.set().samples());
      // 3 parts of 2 834, 2 833 and 2 833 samples: files of 1 000, 1 000 and the rest each
      assertEquals(9, r.set().files());
      assertEquals(r.set().samples(), ShardSet.open(o.directory()).samples());
    } finally {
      spark.stop();
    }
    int i = 0;
    try (ShardProvider p = ShardProvider.builder(dir.resolve("digits").toString()).batchSize(256).build()) {
      for (NamedBatch b : p) {
        float[][] images = b.get("image").toFloatMatrix();
        int[] labels = b.get("label").toIntVector();
        for (int r = 0; r < b.rows(); r++, i++) {
          MnistDigit d = digits.get(i % digits.size());
          assertArrayEquals(d.image(), images[r], "sample " + i);
          assertEquals(d.label(), labels[r], "sample " + i);
        }
      }
    }
    assertEquals(n, i);
    elasticRun(dir, n);
  }

  /**
   * 8 500 samples in batches of 64 with PAD_CONSTANT are 133 global batches (132 x 64 = 8 448, the last
   * of 52), 33 per trainer of four; checkpointing after 10 each puts the state at global batch 40, and
   * the 93 left are dealt 31, 31, 31 to three. The test counts the samples in the trainers' outputs itself:
   * the first 10 batches of each of the four, and all of the three.
   */
  private static void elasticRun(Path dir, int n) throws Exception {
    ElasticTrainers.Options o = ElasticTrainers.Options.parse("--dir", dir.resolve("digits").toString(),
        "--checkpoint-after", "10", "--extra", "3", "--batch", "64", "--window", "2000", "--work",
        dir.resolve("work").toString()).withClassPath(System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")));
    ElasticTrainers.Report r = ElasticTrainers.run(o);
    assertEquals(133, r.globalBatches());
    assertEquals(40, r.checkpoint());
    assertArrayEquals(new int[] {31, 31, 31}, r.resumedBatches());
    int[] seen = new int[n];
    for (int p = 0; p < 4; p++) {
      List<String> lines = Files.readAllLines(r.outputs().resolve("first-" + p));
      assertEquals(13, lines.size(), "trainer " + p + ": 10 batches, then 3 after the checkpoint");
      count(seen, lines.subList(0, 10));
    }
    for (int p = 0; p < 3; p++) {
      count(seen, Files.readAllLines(r.outputs().resolve("resumed-" + p)));
    }
    for (int s = 0; s < n; s++) {
      assertEquals(1, seen[s], "sample " + s + " in the epoch");
    }
  }

  private static void count(int[] seen, List<String> lines) {
    for (String l : lines) {
      for (String id : l.split(" ")) {
        seen[Integer.parseInt(id)]++;
      }
    }
  }
}
