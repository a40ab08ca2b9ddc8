package dev.minibatch.runtime.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.reader.Readers;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.shade.jackson.databind.JsonNode;
import org.nd4j.shade.jackson.databind.ObjectMapper;

/**
 * A trace's events against the stats of the same run. The events are the counters' own
 * nanoseconds, written to the nanosecond (microseconds with three decimals), so every sum below is
 * compared exactly: any difference means an event was lost, doubled or mis-attributed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PipelineTraceTest {
  @TempDir Path dir;

  static void burn(long micros) {
    long end = System.nanoTime() + micros * 1000;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** The parsed JSON, its complete events and the thread names by tid. */
  record Parsed(JsonNode root, List<JsonNode> events, Map<Integer, String> threads) {
    static Parsed of(String json) throws Exception {
      JsonNode root = new ObjectMapper().readTree(json);
      List<JsonNode> events = new ArrayList<>();
      Map<Integer, String> threads = new HashMap<>();
      for (JsonNode e : root.get("traceEvents")) {
        switch (e.get("ph").asText()) {
          case "X" -> events.add(e);
          case "M" -> {
            if (e.get("name").asText().equals("thread_name")) {
              threads.put(e.get("tid").asInt(), e.get("args").get("name").asText());
            }
          }
          default -> { }
        }
      }
      return new Parsed(root, events, threads);
    }

    /** Nanoseconds of the events of {@code stage} and {@code kind} (args.kind). */
    long sum(String stage, String... kinds) {
      long ns = 0;
      for (JsonNode e : events) {
        if (e.get("args").get("stage").asText().equals(stage) && List.of(kinds).contains(e.get("args").get("kind").asText())) {
          ns += nanos(e.get("dur"));
        }
      }
      return ns;
    }

    List<JsonNode> of(String stage, String kind) {
      return events.stream().filter(e -> e.get("args").get("stage").asText().equals(stage)
          && e.get("args").get("kind").asText().equals(kind)).toList();
    }
  }

  /** Microseconds with three decimals, as written, back to nanoseconds (exact: at most 16 digits). */
  static long nanos(JsonNode micros) {
    return new java.math.BigDecimal(micros.asText()).movePointRight(3).longValueExact();
  }

  static Set<String> liveReaderThreads() {
    Set<String> names = new TreeSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("minibatch-array-reader-")) {
        names.add(t.getName());
      }
    }
    return names;
  }

  @SuppressWarnings("try") // the epoch is closed before its stats are read, inside its try
  @Test
  void aTraceOfAProviderWithReadersSumsToItsStats() throws Exception {
    int batches = 100;
    ArrayDataProvider p = ArrayDataProvider.builder().data(Nd4j.rand(batches * 10, 4)).label(Nd4j.zeros(batches * 10))
        .batchSize(10).readers(2).build();
    PipelineStats stats;
    int delivered = 0;
    Path file = dir.resolve("epoch.json");
    try (p; PipelineTrace trace = PipelineTrace.start()) {
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          it.next();
          delivered++;
          // A consumer slower than the readers: they fill the ring and block on it.
          burn(300);
        }
        it.close();
        stats = PipelineStats.of(it);
      }
      trace.stop();
      trace.writeJson(file);
      assertEquals(0, trace.droppedEvents());
    }
    assertEquals(Set.of(), liveReaderThreads(), "no reader thread left running");
    Parsed t = Parsed.of(Files.readString(file));
    assertEquals(List.of("array-reader", "ArrayDataProvider"), stats.stages().stream().map(StageStats::name).toList());
    StageStats readers = stats.stages().get(0);
    StageStats provider = stats.stages().get(1);

    // Every reader thread has a track, named as Workers names it.
    Set<String> readerTracks = new TreeSet<>();
    t.threads().values().stream().filter(n -> n.startsWith("minibatch-array-reader-")).forEach(readerTracks::add);
    Set<String> expected = new TreeSet<>();
    IntStream.range(0, readers.workers()).forEach(k -> expected.add("minibatch-array-reader-" + k));
    assertEquals(expected, readerTracks);
    // The readers' work is on their own tracks, one event per batch a reader wrote.
    for (JsonNode e : t.of("array-reader", "busy")) {
      assertTrue(t.threads().get(e.get("tid").asInt()).startsWith("minibatch-array-reader-"), e.toString());
      assertEquals("array-reader", e.get("name").asText());
      assertTrue(e.get("args").get("batch").asInt() >= 0 && e.get("args").get("batch").asInt() < batches, e.toString());
    }

    // One batch event per batch delivered, numbered in order, on the consumer's track.
    List<JsonNode> next = t.of("ArrayDataProvider", "next");
    assertEquals(batches, delivered);
    assertEquals(batches, provider.items());
    assertEquals(batches, next.size());
    for (int b = 0; b < batches; b++) {
      assertEquals(b, next.get(b).get("args").get("batch").asInt());
      assertEquals(Thread.currentThread().getName(), t.threads().get(next.get(b).get("tid").asInt()));
    }

    // Busy, blocked and waiting times per stage: the stats' figures, to the nanosecond.
    assertEquals(readers.busyNanos(), t.sum("array-reader", "busy"));
    assertEquals(readers.blockedOutputNanos(), t.sum("array-reader", "blocked output"));
    assertEquals(readers.consumerWaitNanos(), t.sum("array-reader", "consumer wait"));
    // The provider's stage counts the consumer's calls as its wait and, less its waits on the
    // readers (nested in those calls), as its busy time.
    assertEquals(provider.consumerWaitNanos(), t.sum("ArrayDataProvider", "next", "hasNext"));
    assertEquals(provider.busyNanos(), t.sum("ArrayDataProvider", "next", "hasNext") - readers.consumerWaitNanos());

    // Waits are wait events: the slow consumer kept the readers blocked.
    List<JsonNode> blocked = t.of("array-reader", "blocked output");
    assertFalse(blocked.isEmpty(), "readers blocked on a full ring");
    for (JsonNode e : blocked) {
      assertEquals("wait", e.get("cat").asText());
      assertEquals("blocked: output full", e.get("name").asText());
    }
    for (JsonNode e : t.events()) {
      assertTrue(nanos(e.get("ts")) >= 0 && nanos(e.get("dur")) >= 0, e.toString());
      assertEquals(ProcessHandle.current().pid(), e.get("pid").asLong());
    }
    assertEquals(t.events().size(), t.root().get("otherData").get("events").asInt());
    assertEquals(0, t.root().get("otherData").get("droppedEvents").asInt());
  }

  @SuppressWarnings("try") // the epoch is closed before its stats are read, inside its try
  @Test
  void aParallelMapAndAProducerStageSumToTheirStats() throws Exception {
    Reader<Integer> r = Readers.<Integer>generate(16, out -> {
      for (int i = 0; i < 200; i++) {
        burn(20);
        out.emit(i);
      }
    }).xmap(2, 8, true, x -> {
      burn(50);
      return x + 1;
    });
    PipelineStats stats;
    String json;
    try (PipelineTrace trace = PipelineTrace.start()) {
      long sum = 0;
      try (PipelineIterator<Integer> it = r.iterator()) {
        while (it.hasNext()) {
          sum += it.next();
        }
        it.close();
        stats = it.stats();
      }
      assertEquals(200 * 201 / 2, sum);
      trace.stop();
      json = trace.toJson();
    }
    Parsed t = Parsed.of(json);
    assertEquals(2, stats.stages().size(), stats.summary());
    for (StageStats s : stats.stages()) {
      assertEquals(s.busyNanos(), t.sum(s.name(), "busy"), s.name());
      assertEquals(s.waitInputNanos(), t.sum(s.name(), "wait input"), s.name());
      assertEquals(s.blockedOutputNanos(), t.sum(s.name(), "blocked output"), s.name());
      assertEquals(s.consumerWaitNanos(), t.sum(s.name(), "consumer wait"), s.name());
      // Every item is in exactly one work event, the chunks numbered from the first item.
      long items = 0;
      for (JsonNode e : t.of(s.name(), "busy")) {
        items += e.get("args").get("items").asLong();
      }
      assertEquals(s.items(), items, s.name());
      assertEquals(200, items, s.name());
    }
  }

  @Test
  void aFullThreadDropsItsLaterEventsAndTheExportSaysHowMany() throws Exception {
    // One thread, no reader threads: an epoch of 10 batches is 11 hasNext() and 10 next() calls,
    // one event each; a cap of 5 keeps the first 5 and drops 16.
    ArrayDataProvider p = ArrayDataProvider.builder().data(Nd4j.rand(100, 2)).label(Nd4j.zeros(100)).batchSize(10).build();
    String json;
    try (p; PipelineTrace trace = PipelineTrace.start(5)) {
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          it.next();
        }
      }
      trace.stop();
      assertEquals(5, trace.events());
      assertEquals(16, trace.droppedEvents());
      json = trace.toJson();
    }
    Parsed t = Parsed.of(json);
    assertEquals(5, t.events().size());
    assertEquals(16, t.root().get("otherData").get("droppedEvents").asInt());
    assertEquals(5, t.root().get("otherData").get("maxEventsPerThread").asInt());
    List<JsonNode> instants = new ArrayList<>();
    t.root().get("traceEvents").forEach(e -> {
      if (e.get("ph").asText().equals("i")) {
        instants.add(e);
      }
    });
    assertEquals(1, instants.size());
    assertEquals("events dropped: 16", instants.get(0).get("name").asText());
  }

  @Test
  void nothingIsRecordedOutsideATraceAndOneTraceRecordsAtATime() {
    ArrayDataProvider p = ArrayDataProvider.builder().data(Nd4j.rand(100, 2)).label(Nd4j.zeros(100)).batchSize(10).build();
    try (p) {
      PipelineTrace trace = PipelineTrace.start();
      IllegalStateException twice = assertThrows(IllegalStateException.class, PipelineTrace::start);
      assertTrue(twice.getMessage().contains("already recording"), twice.getMessage());
      trace.stop();
      assertFalse(trace.recording());
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        while (it.hasNext()) {
          it.next();
        }
      }
      assertEquals(0, trace.events());
      // Stopped, another may start.
      PipelineTrace.start().close();
    }
    assertThrows(IllegalArgumentException.class, () -> PipelineTrace.start(0));
  }

  @Test
  void aFileThatCannotBeWrittenIsNamed() {
    Path missing = dir.resolve("no-such-folder").resolve("trace.json");
    try (PipelineTrace trace = PipelineTrace.start()) {
      trace.stop();
      UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> trace.writeJson(missing));
      assertTrue(e.getMessage().startsWith("cannot write the pipeline trace to " + missing + ": "), e.getMessage());
    }
  }
}
