package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.example.ComputedProvider;
import dev.minibatch.runtime.pipeline.Progress;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nd4j.linalg.factory.Nd4j;

/** Stats and progress on a provider's epoch (the engine's iterator), not only on reader pipelines. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpochStatsTest {
  static long burn(long micros) {
    long end = System.nanoTime() + micros * 1000;
    long x = 0;
    while (System.nanoTime() < end) {
      x++;
    }
    return x;
  }

  private static ArrayDataProvider provider(int readers) {
    return ArrayDataProvider.builder().data(Nd4j.rand(1000, 4)).label(Nd4j.zeros(1000)).batchSize(100)
        .readers(readers).build();
  }

  @Test
  void consumerThreadEpochCountsItsBatchesAndNamesASlowConsumer() {
    try (ArrayDataProvider p = provider(0); BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
        burn(2000);
      }
      PipelineStats stats = PipelineStats.of(it);
      assertEquals(List.of("ArrayDataProvider"), stats.stages().stream().map(StageStats::name).toList());
      assertEquals(10, stats.stages().get(0).items(), stats.summary());
      assertEquals("consumer", stats.bottleneck(), stats.summary());
    }
  }

  @Test
  void aSlowRowWriterIsNamedTheBottleneck() {
    try (ComputedProvider p = ComputedProvider.builder().samples(40, 2, (i, k) -> burn(500) * 0 + i).batchSize(10).build();
        BatchIterator<NamedBatch> it = p.iterator()) {
      int batches = 0;
      while (it.hasNext()) {
        it.next();
        batches++;
      }
      PipelineStats stats = PipelineStats.of(it);
      assertEquals(4, batches);
      assertEquals("ComputedProvider", stats.bottleneck(), stats.summary());
      assertTrue(stats.stages().get(0).utilization() > 0.5, stats.summary());
    }
  }

  @Test
  void readerThreadsReportTheirOwnStageFirst() {
    try (ArrayDataProvider p = provider(2); BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      PipelineStats stats = PipelineStats.of(it);
      assertEquals(List.of("array-reader", "ArrayDataProvider"), stats.stages().stream().map(StageStats::name).toList());
      StageStats readers = stats.stages().get(0);
      assertEquals(10, readers.items(), stats.summary());
      // readers(2) starts two threads, or one on a 2-core machine, where the consumer is the second writer.
      assertEquals(Math.min(2, Math.max(1, Runtime.getRuntime().availableProcessors() - 1)), readers.workers());
      assertEquals(10, stats.stages().get(1).items());
    }
  }

  @Test
  void prefetchingShowsItsReaderThreadThenTheWrappedEpoch() {
    try (dev.minibatch.runtime.engine.PrefetchingProvider<NamedBatch> p =
        dev.minibatch.runtime.engine.PrefetchingProvider.of(provider(0)); BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      PipelineStats stats = PipelineStats.of(it);
      // Over an engine provider the prefetch thread is the engine's reader stage, upstream of the
      // provider's own delivery, as with readers(n).
      assertEquals(List.of("prefetch", "ArrayDataProvider", "PrefetchingProvider"),
          stats.stages().stream().map(StageStats::name).toList(), stats.summary());
      assertEquals(10, stats.stages().get(0).items());
      assertEquals(10, stats.stages().get(1).items());
      assertEquals(10, stats.stages().get(2).items());
    }
  }

  @Test
  void progressTracksAProviderEpoch() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    try (ArrayDataProvider p = provider(0);
        PipelineIterator<NamedBatch> it = Progress.track(PipelineIterator.of(p.iterator()), "epoch 0", 10, out)) {
      int n = 0;
      while (it.hasNext()) {
        it.next();
        n++;
      }
      assertEquals(10, n);
      assertEquals(10, it.stats().stages().get(0).items());
    }
    String shown = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(shown.contains("epoch 0") && shown.contains("10/10"), shown);
  }
}
