package dev.minibatch.shards.killed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A writer killed (SIGKILL) while it closes a chosen file, on a file system that pauses there
 * ({@link PausingFileSystem}), leaves a directory that is no shard set, and the same job run again
 * takes it without a hand step and writes the complete set: every sample once, in order.
 */
class KilledWriterTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{1} killed closing {0}")
  @CsvSource({
      "shards.index, write", // inside the commit
      "part-00001, write", // the second shard file
      "shards.index, segments", // the commit of segments written in parallel
      "part-00001-00001, segments" // segment 1's second file
  })
  void aKilledWriterLeavesNoSetAndTheRetryTakesTheDirectory(String pauseOn, String how) throws Exception {
    Path set = dir.resolve("set");
    killWhileClosing(set, pauseOn, how);
    assertFalse(Files.exists(set.resolve("shards.index")) && Files.size(set.resolve("shards.index")) == 0,
        "a killed commit left an empty index");
    FileFormatException noSet = assertThrows(FileFormatException.class, () -> ShardSet.open(set.toString()));
    assertTrue(noSet.getMessage().contains("is not a shard set"), noSet.getMessage());

    Configuration conf = new Configuration();
    KilledWriter.write(set.toUri().toString(), conf, how.equals("segments"));
    assertEquals(KilledWriter.SAMPLES, ShardSet.open(set.toString()).samples());
    try (ShardProvider p = ShardProvider.builder(set.toString()).batchSize(64).build()) {
      List<Integer> ids = new ArrayList<>();
      for (NamedBatch b : p) {
        for (int r = 0; r < b.countSamples(); r++) {
          int id = (int) b.get("x").getFloat(r, 0);
          assertEquals(id % 7, b.get("y").getInt(r), "label of " + id);
          ids.add(id);
        }
      }
      assertEquals(KilledWriter.SAMPLES, ids.size());
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(i, ids.get(i), "position " + i);
      }
    }
    try (Stream<Path> files = Files.list(set)) {
      assertTrue(files.noneMatch(f -> f.getFileName().toString().contains("inprogress")),
          "the retry removed the killed commit's unfinished index");
    }
  }

  /** Runs {@link KilledWriter} in a child JVM and kills it once it pauses closing {@code pauseOn}. */
  private static void killWhileClosing(Path set, String pauseOn, String how) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
        KilledWriter.class.getName(), set.toString(), pauseOn, how).redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      List<String> lines = new ArrayList<>();
      for (String line; (line = out.readLine()) != null; ) {
        lines.add(line);
        if (line.startsWith("PAUSED ")) {
          assertTrue(line.contains(pauseOn), line);
          child.destroyForcibly();
          assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not die");
          return;
        }
      }
      throw new AssertionError("the writer never paused closing " + pauseOn + ": " + lines);
    } finally {
      child.destroyForcibly();
    }
  }
}
