package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.shade.jackson.databind.JsonNode;
import org.nd4j.shade.jackson.databind.ObjectMapper;

/**
 * {@code minibatch bench --report FILE.html}: the page holds every epoch of the run with the stats
 * the command printed (the page drawing its stats is PipelineReportTest's, in headless Chromium).
 */
class CliReportTest {
  @TempDir Path dir;

  @Test
  void benchWritesAReportOfEveryEpochOfTheRun() throws Exception {
    Path file = dir.resolve("bench.html");
    // A warm-up epoch and 2 epochs of the 10 000 MNIST test images in batches of 100.
    CliTest.Run r = CliTest.run("bench", "--no-progress", "--epochs", "2", "--batch", "100", "--report", file.toString(),
        CliTest.IMAGES.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("", r.err());
    assertTrue(r.out().contains("report:   " + file + " (3 epochs; open it in a browser)"), r.out());
    String html = Files.readString(file);
    assertTrue(html.startsWith("<!DOCTYPE html>"), html);
    assertFalse(Pattern.compile("(src|href)=\"(https?:)?//").matcher(html).find(), "nothing fetched when viewed");
    Matcher m = Pattern.compile("id=\"stats\">(.*?)</script>", Pattern.DOTALL).matcher(html);
    assertTrue(m.find(), "the stats block");
    JsonNode json = new ObjectMapper().readTree(m.group(1));
    List<String> labels = new ArrayList<>();
    for (JsonNode e : json.get("epochs")) {
      labels.add(e.get("label").asText());
      assertEquals(10_000, e.get("samples").asLong());
      JsonNode own = e.get("stages").get(e.get("stages").size() - 1);
      assertEquals("MnistProvider", own.get("name").asText());
      assertEquals(100, own.get("items").asLong(), "10 000 samples in batches of 100");
    }
    assertEquals(List.of("warm-up 1", "epoch 1", "epoch 2"), labels);
    // The last epoch's stage line, as the command printed it, from the page's counters.
    JsonNode s = json.get("epochs").get(2).get("stages").get(0);
    String line = String.format(Locale.ROOT, "  %-22s %6d batches  busy %7.3f s  waiting for input %7.3f s  blocked %7.3f s  "
        + "consumer waited %7.3f s  queue %d/%d", "MnistProvider[1]", s.get("items").asLong(),
        s.get("busyNanos").asLong() / 1e9, s.get("waitInputNanos").asLong() / 1e9,
        s.get("blockedOutputNanos").asLong() / 1e9, s.get("consumerWaitNanos").asLong() / 1e9,
        s.get("queueDepth").asInt(), s.get("queueCapacity").asInt());
    assertTrue(r.out().contains(line), line + " in " + r.out());
    assertTrue(r.out().contains("bottleneck: " + json.get("epochs").get(2).get("bottleneck").asText()), r.out());
  }

  @Test
  void aReportThatCannotBeWrittenIsNamedBeforeTheRun() {
    Path file = dir.resolve("no-such-folder").resolve("bench.html");
    CliTest.Run r = CliTest.run("bench", "--no-progress", "--report", file.toString(), CliTest.IMAGES.toString());
    assertEquals(Minibatch.ExitCode.INPUT, r.code(), r.out() + r.err());
    assertEquals("minibatch bench: cannot write the pipeline report to " + file + ": no such folder "
        + file.toAbsolutePath().getParent() + System.lineSeparator(), r.err());
    assertFalse(r.out().contains("epoch"), r.out());
    assertFalse(Files.exists(file));
  }

  @Test
  void benchHelpListsReport() {
    CliTest.Run help = CliTest.run("bench", "--help");
    assertTrue(help.out().contains("--report=FILE"), help.out());
    assertTrue(help.out().contains("minibatch bench --report bench.html train.rec"), help.out());
  }
}
