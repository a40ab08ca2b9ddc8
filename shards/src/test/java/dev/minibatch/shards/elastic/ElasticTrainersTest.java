package dev.minibatch.shards.elastic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The "done when", on processes: four trainer JVMs read a shard set's epoch in the global
 * order and checkpoint after 20 batches each; one is killed while it reads on, the job stops, and
 * three new trainer JVMs resume from the checkpoint. The epoch then holds every sample exactly once:
 * the 80 global batches before the checkpoint from the four, the other 233 from the three.
 *
 * <p>Known answers: 10 000 samples in batches of 32 with PAD_CONSTANT are 313 global batches (the
 * last of 16 samples). The state after 20 batches on each of 4 trainers is at global batch 20 x 4 =
 * 80 (docs/engine.md, "Elastic shards"), the same text on each; trainer {@code p} of {@code k}
 * gets global batches {@code s + p, s + p + k, …}, so the three get 78, 78 and 77 batches.
 */
class ElasticTrainersTest {
  static final int N = 10_000;
  static final int BATCH = 32;
  static final int WINDOW = 1_500;
  private static final int CHECKPOINT = 20;
  private static final int EXTRA = 5;

  @TempDir Path dir;
  private final Map<Process, BufferedReader> readers = new HashMap<>();

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void fourTrainersOneKilledThreeResumeWithEveryRemainingSampleOnce() throws Exception {
    String set = write();
    List<int[]> global = epoch(set);
    assertEquals(313, global.size(), "ceil(10 000 / 32) global batches");
    assertEquals(16, global.get(312).length, "the last batch holds 10 000 - 312 x 32 samples");

    List<Process> first = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      first.add(start(set, 4, p, "-", "first-" + p));
    }
    for (int p = 0; p < 4; p++) {
      expectLine(first.get(p), "checkpoint", "first-" + p);
      expectLine(first.get(p), "waiting", "first-" + p);
    }
    // Trainer 2 dies mid-epoch (its read-ahead thread alive, 25 batches delivered); the job stops.
    Process killed = first.get(2);
    killed.destroyForcibly();
    assertTrue(killed.waitFor(1, TimeUnit.MINUTES));
    assertNotEquals(0, killed.exitValue(), "killed, not ended");
    for (Process p : first) {
      p.destroyForcibly();
      assertTrue(p.waitFor(1, TimeUnit.MINUTES));
    }

    String state = Files.readString(dir.resolve("first-0.state"));
    for (int p = 1; p < 4; p++) {
      assertEquals(state, Files.readString(dir.resolve("first-" + p + ".state")),
          "every trainer saves the same state at the same step");
    }
    IterationState decoded = IterationState.decode(state);
    assertEquals(0, decoded.epoch());
    assertEquals(CHECKPOINT * 4, decoded.position(), "global batches before the checkpoint: 20 on each of 4");

    int[] seen = new int[N];
    for (int p = 0; p < 4; p++) {
      List<int[]> lines = lines(dir.resolve("first-" + p));
      assertEquals(CHECKPOINT + EXTRA, lines.size(), "first-" + p + ": batches delivered before the kill");
      for (int j = 0; j < CHECKPOINT; j++) {
        assertArrayEquals(global.get(p + 4 * j), lines.get(j), "first-" + p + " batch " + j);
        count(seen, lines.get(j));
      }
    }

    Path stateFile = dir.resolve("first-0.state");
    List<Process> resumed = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      resumed.add(start(set, 3, p, stateFile.toString(), "resumed-" + p));
    }
    int[] expected = {78, 78, 77};
    for (int p = 0; p < 3; p++) {
      expectLine(resumed.get(p), "done " + expected[p], "resumed-" + p);
      assertTrue(resumed.get(p).waitFor(1, TimeUnit.MINUTES));
      assertEquals(0, resumed.get(p).exitValue(), "resumed-" + p + " exit status");
      List<int[]> lines = lines(dir.resolve("resumed-" + p));
      assertEquals(expected[p], lines.size());
      for (int j = 0; j < lines.size(); j++) {
        assertArrayEquals(global.get(CHECKPOINT * 4 + p + 3 * j), lines.get(j), "resumed-" + p + " batch " + j);
        count(seen, lines.get(j));
      }
    }
    for (int i = 0; i < N; i++) {
      assertEquals(1, seen[i], "sample " + i + " in the epoch");
    }
  }

  /** 10 000 samples, x = [id, id, id, id] float32 and y = id mod 10, in files of 700 (15 files). */
  private String write() {
    float[][] x = new float[N][4];
    int[] y = new int[N];
    for (int i = 0; i < N; i++) {
      Arrays.fill(x[i], i);
      y[i] = i % 10;
    }
    String set = dir.resolve("set").toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(x))
        .label("y", Nd4j.createFromArray(y)).batchSize(500).build()) {
      assertEquals(15, ShardWriter.builder().samplesPerFile(700).build().write(source, set).files());
    }
    return set;
  }

  /** Epoch 0 as one trainer sees it: the global order, every sample once. */
  private static List<int[]> epoch(String set) {
    List<int[]> out = new ArrayList<>();
    int[] seen = new int[N];
    try (ShardProvider p = ShardTrainer.settings(set).build()) {
      for (NamedBatch b : p) {
        int[] ids = ShardTrainer.ids(b);
        out.add(ids);
        count(seen, ids);
      }
    }
    for (int i = 0; i < N; i++) {
      assertEquals(1, seen[i], "sample " + i + " in the global order");
    }
    return out;
  }

  private static void count(int[] seen, int[] ids) {
    for (int id : ids) {
      seen[id]++;
    }
  }

  private Process start(String set, int parts, int part, String state, String out) throws IOException {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        ShardTrainer.class.getName(), set, Integer.toString(parts), Integer.toString(part), state,
        dir.resolve(out).toString(), Integer.toString(CHECKPOINT), Integer.toString(EXTRA));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(dir.resolve(out + ".err").toFile());
    pb.environment().put("OMP_NUM_THREADS", "1");
    return pb.start();
  }

  /** Reads the trainer's next line of output, which must be {@code expected}. */
  private void expectLine(Process p, String expected, String name) throws IOException {
    BufferedReader r = readers.computeIfAbsent(p,
        q -> new BufferedReader(new InputStreamReader(q.getInputStream(), StandardCharsets.UTF_8)));
    String line = r.readLine();
    assertNotNull(line, name + " ended before '" + expected + "'; its stderr:\n"
        + Files.readString(dir.resolve(name + ".err")));
    assertEquals(expected, line, name);
  }

  private static List<int[]> lines(Path file) throws IOException {
    List<int[]> out = new ArrayList<>();
    for (String l : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
      out.add(Arrays.stream(l.split(" ")).mapToInt(Integer::parseInt).toArray());
    }
    return out;
  }
}
