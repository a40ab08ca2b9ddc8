package dev.minibatch.runtime.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.runtime.pipeline.PipelineStats.PaddingStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.reader.Readers;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.shade.jackson.databind.JsonNode;
import org.nd4j.shade.jackson.databind.ObjectMapper;

/**
 * The HTML report opened in headless Chromium: its script runs without an error, and every figure
 * it draws equals the stats — hand-made stats against hand-computed shares, rates and verdicts, and
 * a real provider's stats against {@link StageStats}' own methods.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PipelineReportTest {
  private static final long S = 1_000_000_000L;

  @TempDir Path dir;

  private String render(PipelineReport report) throws Exception {
    Path page = dir.resolve("report.html");
    report.writeHtml(page);
    String dom = HeadlessChromium.dumpDom(page, dir.resolve("profile"));
    HeadlessChromium.assertRendered(dom);
    return dom;
  }

  private static RuntimeException cause(String message) {
    return new IllegalStateException(message);
  }

  /** Two epochs of a reader stage (2 threads) and a provider's own stage, with bad samples and padding. */
  private static PipelineReport handMade() {
    PipelineStats first = new PipelineStats(List.of(
        new StageStats("read", 2, 500, 6 * S, S, S / 2, 28 * S / 10, 4 * S, 3, 16),
        new StageStats("P", 1, 50, S, 0, 0, 3 * S, 4 * S, 0, 1)), new PaddingStats(1000, 250));
    PipelineStats second = new PipelineStats(List.of(
        new StageStats("read", 2, 400, 5 * S, 5 * S / 4, 5 * S / 2, S / 2, 5 * S, 16, 16),
        new StageStats("P", 1, 40, S, 0, 0, 3 * S / 2, 5 * S, 0, 1)), new PaddingStats(800, 100))
        .withBadSamples(List.of(new BadSample(1, 5, -1, cause("r.rec: record 5: <b>bad</b> & worse")),
            new BadSample(1, 9, 10, cause("r.rec: record 9")), new BadSample(1, 13, -1, cause("r.rec: record 13"))))
        .withTuning(List.of(new PipelineStats.Tuning("read", 3, 6, true, 4, 3L << 20, 8, 256L << 20)));
    return PipelineReport.builder().title("hand-made </script> run").cores(8).epoch("epoch 0", first, 400)
        .epoch("epoch 1", second, 320).build();
  }

  @Test
  void handMadeStatsAreDrawnWithTheHandComputedFigures() throws Exception {
    String dom = render(handMade());
    Map<String, String> f = HeadlessChromium.figures(dom);
    // Epoch 0, reader stage: 6 s busy of 4 s on 2 threads, 1 s waiting for input, 0.5 s blocked;
    // its consumer waited 2.8 s of 4.
    assertEquals(0.75, Double.parseDouble(f.get("busy|0|0")));
    assertEquals(0.125, Double.parseDouble(f.get("input|0|0")));
    assertEquals(0.0625, Double.parseDouble(f.get("blocked|0|0")));
    assertEquals(0.7, Double.parseDouble(f.get("waited|0|0")));
    assertTrue(dom.contains("data-figure=\"busy\" data-epoch=\"0\" data-stage=\"0\" data-value=\"0.75\">75.0% (6.000 s)</td>"),
        dom);
    // Epoch 1: 5 s busy, 1.25 s input, 2.5 s blocked of 5 s on 2 threads; the provider's consumer waited 30 %.
    assertEquals(0.5, Double.parseDouble(f.get("busy|1|0")));
    assertEquals(0.125, Double.parseDouble(f.get("input|1|0")));
    assertEquals(0.25, Double.parseDouble(f.get("blocked|1|0")));
    assertEquals(0.3, Double.parseDouble(f.get("waited|1|1")));
    // The bars are the shares of 400 pixels, one after another.
    assertTrue(dom.contains("x=\"170\" y=\"4\" width=\"300\" height=\"18\" data-figure=\"bar-busy\" data-epoch=\"0\""), dom);
    assertTrue(dom.contains("x=\"470\" y=\"4\" width=\"50\" height=\"18\" data-figure=\"bar-input\" data-epoch=\"0\""), dom);
    assertEquals("0.0625", f.get("bar-idle|0|0"), "1 - 0.75 - 0.125 - 0.0625");
    // Throughput: 50 batches in 4 s, 40 in 5 s; 400 and 320 samples; the epochs end at 4 s and 9 s.
    assertEquals(12.5, Double.parseDouble(f.get("items-per-second|0")));
    assertEquals(8.0, Double.parseDouble(f.get("items-per-second|1")));
    assertEquals(100.0, Double.parseDouble(f.get("samples-per-second|0")));
    assertEquals(64.0, Double.parseDouble(f.get("samples-per-second|1")));
    assertEquals(12.5, Double.parseDouble(f.get("point-items|0")));
    assertEquals(64.0, Double.parseDouble(f.get("point-samples|1")));
    assertEquals(4.0, Double.parseDouble(f.get("end-seconds|0")));
    assertEquals(9.0, Double.parseDouble(f.get("end-seconds|1")));
    // Queues: 3 of 16, then full.
    assertEquals("3", f.get("queue-depth|0|0"));
    assertEquals("16", f.get("queue-capacity|0|0"));
    assertEquals(3 / 16.0, Double.parseDouble(f.get("bar-queue|0|0")));
    assertEquals(1.0, Double.parseDouble(f.get("bar-queue|1|0")));
    // Bad samples: none, then 3 (one replaced); padding 250 of 1000 and 100 of 800 steps.
    assertEquals("0", f.get("bad-samples|0"));
    assertEquals("3", f.get("bad-samples|1"));
    assertEquals("1", f.get("replaced-samples|1"));
    assertEquals("2", f.get("skipped-samples|1"));
    assertEquals(0.25, Double.parseDouble(f.get("padding-ratio|0")));
    assertEquals(0.125, Double.parseDouble(f.get("padding-ratio|1")));
    assertTrue(dom.contains(">epoch 1, sample 5 skipped: r.rec: record 5: &lt;b&gt;bad&lt;/b&gt; &amp; worse</li>"), dom);
    assertTrue(dom.contains(">epoch 1, sample 9 replaced by sample 10: r.rec: record 9</li>"), dom);
    // Bottlenecks: the readers (75 % busy) in epoch 0; in epoch 1 the consumer, busy 70 %.
    assertEquals("read", f.get("bottleneck|0"));
    assertEquals("consumer", f.get("bottleneck|1"));
    // Verdicts, by the live verdict's table: in epoch 0 the provider waited on the readers 70 % of the
    // time, and 2 readers < 8 cores; in epoch 1 it waited 30 %, not on the readers (10 %): its own
    // stage. The run: 3.3 s of 9 s (37 %) on the readers, blocked 3 of 18 s (< 25 %): more readers.
    assertEquals("read[2] readers", f.get("verdict|0"));
    assertEquals("P[1] readers", f.get("verdict|1"));
    assertEquals("read[2] readers", f.get("verdict|run"));
    assertTrue(dom.contains("P, epoch 0: input-bound: the consumer waited for batches 75% of the last 4.0 s; limiting "
        + "stage read[2] (busy 75%): raise readers(n) (preprocessThreads(n) for images) from 2 towards 8, the machine's "
        + "cores"), dom);
    assertTrue(dom.contains("<title>hand-made &lt;/script&gt; run</title>"), dom);
    assertTrue(dom.contains("<h1 id=\"title\">hand-made &lt;/script&gt; run</h1>"), dom);
  }

  @Test
  void aRealProvidersEpochsAndAReaderPassAreDrawnAsTheirStatsSay() throws Exception {
    ArrayDataProvider p = ArrayDataProvider.builder().data(Nd4j.rand(2000, 8)).label(Nd4j.zeros(2000)).batchSize(50)
        .readers(2).build();
    PipelineReport.Builder report = PipelineReport.builder();
    List<PipelineStats> epochs = new ArrayList<>();
    List<Long> samples = new ArrayList<>();
    for (int e = 0; e < 2; e++) {
      long n = 0;
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          n += it.next().countSamples();
        }
        epochs.add(PipelineStats.of(it));
      }
      assertEquals(2000, n);
      assertEquals(40, epochs.get(e).stages().get(epochs.get(e).stages().size() - 1).items(), "batches of 50");
      samples.add(n);
    }
    p.close();
    // A reader pass with a parallel map on 2 threads: a stage whose shares are of 2 threads' time.
    Reader<Integer> r = Readers.<Integer>generate(16, out -> {
      for (int i = 0; i < 300; i++) {
        out.emit(i);
      }
    }).xmap(2, 8, true, x -> {
      long end = System.nanoTime() + 20_000;
      while (System.nanoTime() < end) {
        Thread.onSpinWait();
      }
      return x;
    });
    try (PipelineIterator<Integer> it = r.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      epochs.add(it.stats());
    }
    samples.add(300L);
    assertTrue(epochs.get(2).stages().stream().anyMatch(s -> s.workers() == 2), epochs.get(2).summary());
    for (int e = 0; e < epochs.size(); e++) {
      report.epoch("pass " + e, epochs.get(e), samples.get(e));
    }
    String dom = render(report.build());
    Map<String, String> f = HeadlessChromium.figures(dom);
    JsonNode json = new ObjectMapper().readTree(stats(dom));
    double end = 0;
    for (int e = 0; e < epochs.size(); e++) {
      List<StageStats> stages = epochs.get(e).stages();
      for (int k = 0; k < stages.size(); k++) {
        StageStats s = stages.get(k);
        String at = "|" + e + "|" + k;
        double threads = (double) s.wallNanos() * s.workers();
        assertEquals(s.utilization(), Double.parseDouble(f.get("busy" + at)), "busy" + at);
        assertEquals(s.waitInputNanos() / threads, Double.parseDouble(f.get("input" + at)), "input" + at);
        assertEquals(s.blockedOutputNanos() / threads, Double.parseDouble(f.get("blocked" + at)), "blocked" + at);
        assertEquals(s.consumerWaitShare(), Double.parseDouble(f.get("waited" + at)), "waited" + at);
        assertEquals(s.items(), Long.parseLong(f.get("stage-items" + at)));
        assertEquals(s.wallNanos(), Long.parseLong(f.get("wall-nanos" + at)));
        assertEquals(s.queueDepth(), Integer.parseInt(f.get("queue-depth" + at)));
        assertEquals(s.queueCapacity(), Integer.parseInt(f.get("queue-capacity" + at)));
        JsonNode js = json.get("epochs").get(e).get("stages").get(k);
        assertEquals(List.of(s.busyNanos(), s.waitInputNanos(), s.blockedOutputNanos(), s.consumerWaitNanos()),
            List.of(js.get("busyNanos").asLong(), js.get("waitInputNanos").asLong(), js.get("blockedOutputNanos").asLong(),
                js.get("consumerWaitNanos").asLong()));
      }
      StageStats last = stages.get(stages.size() - 1);
      end += last.wallNanos();
      assertEquals(last.items() / (last.wallNanos() / 1e9), Double.parseDouble(f.get("items-per-second|" + e)));
      assertEquals(samples.get(e) / (last.wallNanos() / 1e9), Double.parseDouble(f.get("samples-per-second|" + e)));
      assertEquals(end / 1e9, Double.parseDouble(f.get("end-seconds|" + e)), 1e-12);
      assertEquals(epochs.get(e).bottleneck(), f.get("bottleneck|" + e));
    }
    // The passes list other stages: no verdict on them as one run.
    assertTrue(json.get("run").isNull());
  }

  /** The JSON block of a page (as the browser printed it: the script element's text is not escaped). */
  private static String stats(String dom) {
    Matcher m = Pattern.compile("<script type=\"application/json\" id=\"stats\">(.*?)</script>", Pattern.DOTALL)
        .matcher(dom);
    assertTrue(m.find(), "no stats block");
    return m.group(1);
  }

  @Test
  void whatAutotuningChoseIsShownForTheEpochsThatHaveIt() throws Exception {
    String dom = render(handMade());
    Map<String, String> f = HeadlessChromium.figures(dom);
    assertEquals("3", f.get("tuned-readers|1|read"));
    assertEquals("6", f.get("tuned-prefetch|1|read"));
    assertEquals("4", f.get("tuned-trials|1|read"));
    assertEquals(String.valueOf(3L << 20), f.get("tuned-buffer-bytes|1|read"));
    assertFalse(f.containsKey("tuned-readers|0|read"), "epoch 0 was not tuned");
    assertTrue(dom.contains("<td>8 cpus, 256.0 MiB</td>"), dom);
    JsonNode tuning = new ObjectMapper().readTree(stats(dom)).get("epochs").get(1).get("tuning").get(0);
    assertEquals("read", tuning.get("stage").asText());
    assertEquals(3, tuning.get("readers").asInt());
    assertEquals(256L << 20, tuning.get("memoryBytes").asLong());
    assertEquals(0, new ObjectMapper().readTree(stats(dom)).get("epochs").get(0).get("tuning").size());
  }

  @Test
  void aScriptErrorIsSeenByTheCheck() throws Exception {
    // The check itself: a page whose script fails is reported, with the browser's message.
    Path page = dir.resolve("broken.html");
    Files.writeString(page, handMade().toHtml().replace("var data = JSON.parse(", "var data = JSON.parsed("));
    String dom = HeadlessChromium.dumpDom(page, dir.resolve("profile"));
    AssertionError e = assertThrows(AssertionError.class, () -> HeadlessChromium.assertRendered(dom));
    assertTrue(e.getMessage().contains("JSON.parsed is not a function"), e.getMessage());
  }

  @Test
  void theJsonBlockHoldsTheCountersAndNothingEndsTheScriptEarly() throws Exception {
    String html = handMade().toHtml();
    // One closing tag per script: the title's "</script>" and the bad sample's "<b>" are escaped.
    assertEquals(3, html.split("</script>", -1).length - 1);
    Matcher m = Pattern.compile("id=\"stats\">(.*?)</script>", Pattern.DOTALL).matcher(html);
    assertTrue(m.find());
    JsonNode json = new ObjectMapper().readTree(m.group(1));
    assertEquals("hand-made </script> run", json.get("title").asText());
    JsonNode read = json.get("epochs").get(0).get("stages").get(0);
    assertEquals(6 * S, read.get("busyNanos").asLong());
    assertEquals(28 * S / 10, read.get("consumerWaitNanos").asLong());
    assertEquals("r.rec: record 5: <b>bad</b> & worse", json.get("epochs").get(1).get("listed").get(0).get("cause").asText());
    // The run: the counters added up.
    JsonNode run = json.get("run").get("stages").get(0);
    assertEquals(900, run.get("items").asLong());
    assertEquals(11 * S, run.get("busyNanos").asLong());
    assertEquals(9 * S, run.get("wallNanos").asLong());
    assertEquals(3, json.get("run").get("badSamples").asInt());
    assertFalse(html.contains("http://") && html.contains("src=\"http"), "nothing fetched");
  }

  @Test
  void epochsWithOtherStagesHaveNoRunVerdict() throws Exception {
    PipelineStats a = new PipelineStats(List.of(new StageStats("P", 1, 10, S, 0, 0, S, 2 * S, 0, 1)));
    PipelineStats b = new PipelineStats(List.of(new StageStats("Q", 1, 10, S, 0, 0, S, 2 * S, 0, 1)));
    String html = PipelineReport.builder().epoch("a", a).epoch("b", b).build().toHtml();
    assertTrue(html.contains("\"run\":null"), html);
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> PipelineReport.builder().threshold(1));
    assertThrows(IllegalArgumentException.class, () -> PipelineReport.builder().cores(0));
    assertThrows(IllegalArgumentException.class, () -> PipelineReport.builder().epoch("e", PipelineStats.EMPTY, -1));
    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> handMade().writeHtml(dir.resolve("missing").resolve("r.html")));
    assertTrue(e.getMessage().contains("the pipeline report to " + dir.resolve("missing").resolve("r.html")),
        e.getMessage());
  }
}
