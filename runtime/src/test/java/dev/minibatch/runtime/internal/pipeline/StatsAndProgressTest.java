package dev.minibatch.runtime.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.Progress;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatsAndProgressTest {

  /** Spends about {@code micros} of CPU. */
  static long burn(long micros) {
    long end = System.nanoTime() + micros * 1000;
    long x = 0;
    while (System.nanoTime() < end) {
      x++;
    }
    return x;
  }

  static PipelineIterator<Integer> source(int n) {
    return PipelineIterator.of(IntStream.range(0, n).boxed().iterator());
  }

  @Test
  void countersCountItemsAndNameEveryStage() {
    PipelineIterator<Integer> mapped = Stages.parallelMap(Stages.prefetch("read", 16, source(500)),
        ParallelOptions.of(b -> b.workers(2).bufferSize(8).name("decode")), x -> x + 1);
    int n = 0;
    while (mapped.hasNext()) {
      mapped.next();
      n++;
    }
    assertEquals(500, n);
    PipelineStats stats = mapped.stats();
    assertEquals(List.of("read", "decode"), stats.stages().stream().map(StageStats::name).toList());
    assertEquals(500, stats.stage("read").orElseThrow().items());
    assertEquals(500, stats.stage("decode").orElseThrow().items());
    assertEquals(2, stats.stage("decode").orElseThrow().workers());
    assertEquals(0, stats.stage("decode").orElseThrow().queueDepth());
    assertEquals(10, stats.stage("decode").orElseThrow().queueCapacity());
    String summary = stats.summary();
    assertTrue(summary.contains("read[1]: 500 items") && summary.contains("decode[2]: 500 items")
        && summary.contains("bottleneck: "), summary);
  }

  @Test
  void aSlowMapIsNamedTheBottleneck() {
    try (PipelineIterator<Integer> it = Stages.parallelMap(source(60),
        ParallelOptions.of(b -> b.workers(1).bufferSize(4).name("slow-map")), x -> (int) burn(2000) * 0 + x)) {
      while (it.hasNext()) {
        it.next();
      }
      PipelineStats stats = it.stats();
      assertEquals("slow-map", stats.bottleneck(), stats.summary());
      assertTrue(stats.stage("slow-map").orElseThrow().consumerWaitShare() > 0.5, stats.summary());
    }
  }

  @Test
  void aSlowConsumerIsNamedTheBottleneck() {
    try (PipelineIterator<Integer> it = Stages.prefetch("read", 8, source(60))) {
      while (it.hasNext()) {
        it.next();
        burn(2000);
      }
      PipelineStats stats = it.stats();
      assertEquals("consumer", stats.bottleneck(), stats.summary());
      StageStats read = stats.stage("read").orElseThrow();
      assertTrue(read.blockedOutputNanos() > read.busyNanos(), "the reader mostly waited for room: " + read);
    }
  }

  @Test
  void progressShowsTheTaskAndTheCount() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    try (PipelineIterator<Integer> it = Progress.track(Stages.prefetch("read", 4, source(25)), "epoch 1", 25, out)) {
      int n = 0;
      while (it.hasNext()) {
        it.next();
        n++;
      }
      assertEquals(25, n);
    }
    String shown = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(shown.contains("epoch 1") && shown.contains("25/25"), shown);
  }
}
