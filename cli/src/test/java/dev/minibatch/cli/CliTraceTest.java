package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.shade.jackson.databind.JsonNode;
import org.nd4j.shade.jackson.databind.ObjectMapper;

/** {@code minibatch bench --trace FILE}. */
class CliTraceTest {
  @TempDir Path dir;

  @Test
  void benchWritesATraceOfEveryBatchOfTheRun() throws Exception {
    Path file = dir.resolve("bench.json");
    // A warm-up epoch and 2 epochs of the 10 000 MNIST test images in batches of 100: 300 batches.
    CliTest.Run r = CliTest.run("bench", "--no-progress", "--epochs", "2", "--batch", "100", "--trace", file.toString(),
        CliTest.IMAGES.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("", r.err());
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    List<JsonNode> next = new ArrayList<>();
    List<String> threads = new ArrayList<>();
    for (JsonNode e : root.get("traceEvents")) {
      if (e.get("ph").asText().equals("X") && e.get("name").asText().equals("next")) {
        next.add(e);
      } else if (e.get("name").asText().equals("thread_name")) {
        threads.add(e.get("args").get("name").asText());
      }
    }
    assertEquals(300, next.size());
    for (JsonNode e : next) {
      assertEquals("MnistProvider", e.get("args").get("stage").asText());
    }
    // Each epoch numbers its batches from 0.
    assertEquals(List.of(0, 99, 0, 99, 0, 99), List.of(next.get(0), next.get(99), next.get(100), next.get(199),
        next.get(200), next.get(299)).stream().map(e -> e.get("args").get("batch").asInt()).toList());
    assertEquals(List.of(Thread.currentThread().getName()), threads, "the bench loop runs on the caller's thread");
    long events = root.get("otherData").get("events").asLong();
    // MnistProvider makes its batches on the loop's thread: per epoch 100 next() and 101 hasNext()
    // calls, one event each, and no other stage.
    assertEquals(3 * (100 + 101), events);
    assertTrue(r.out().contains("trace:    " + file + " (" + events + " events, 0 dropped; open it in ui.perfetto.dev"
        + " or chrome://tracing)"), r.out());
  }

  @Test
  void aTraceThatCannotBeWrittenIsNamedBeforeTheRun() {
    Path file = dir.resolve("no-such-folder").resolve("bench.json");
    CliTest.Run r = CliTest.run("bench", "--no-progress", "--trace", file.toString(), CliTest.IMAGES.toString());
    assertEquals(Minibatch.ExitCode.INPUT, r.code(), r.out() + r.err());
    assertEquals("minibatch bench: cannot write the pipeline trace to " + file + ": no such folder "
        + file.toAbsolutePath().getParent() + System.lineSeparator(), r.err());
    assertFalse(r.out().contains("epoch"), r.out());
    assertFalse(Files.exists(file));
  }

  @Test
  void benchHelpListsTrace() {
    CliTest.Run help = CliTest.run("bench", "--help");
    assertTrue(help.out().contains("--trace=FILE"), help.out());
    assertTrue(help.out().contains("minibatch bench --trace bench.json train.rec"), help.out());
  }
}
