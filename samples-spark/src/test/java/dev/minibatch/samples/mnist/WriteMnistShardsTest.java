package dev.minibatch.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark local[2] job writes a shard set of digits, read back in order: sample {@code i} is bundled
 * training digit {@code i mod 8000}, its pixels and label.
 */
class WriteMnistShardsTest {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theJobWritesEveryDigitInIdOrder(@TempDir Path dir) {
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
  }
}
