package dev.minibatch.shards;

import dev.minibatch.runtime.array.ArrayDataProvider;
import java.nio.file.Path;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Samples that say which they are, for tests that check orders: sample {@code id} has data {@code
 * x = [id, id]} float32 and label {@code y = id mod 7} int32.
 */
public final class IdSamples {
  private IdSamples() {}

  /** A provider of the samples {@code first .. first + n - 1}, in order, in batches of 64. */
  public static ArrayDataProvider provider(int first, int n) {
    float[][] x = new float[n][2];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      x[i][0] = first + i;
      x[i][1] = first + i;
      y[i] = (first + i) % 7;
    }
    return ArrayDataProvider.builder().data("x", Nd4j.create(x)).label("y", Nd4j.createFromArray(y))
        .batchSize(64).build();
  }

  /** Writes the samples {@code first .. first + n - 1} as the shard set {@code dir/name}, files of {@code perFile}. */
  public static String write(Path dir, String name, int first, int n, int perFile) {
    String set = dir.resolve(name).toString();
    try (ArrayDataProvider source = provider(first, n)) {
      ShardWriter.builder().samplesPerFile(perFile).build().write(source, set);
    }
    return set;
  }
}
