package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.contract.EngineThreads;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** docs/images.md: multicast, as for every file provider, on ImageRecordProvider's reader threads. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ImageMulticastTest {
  @TempDir Path dir;

  /**
   * Record {@code i} has label {@code i} and a 1x2 gray image whose pixels are {@code 10 i} and
   * {@code 10 i + 1}: what every row of a batch must hold is known from its label alone.
   */
  private Path records(int n) {
    List<ImageRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int s = i;
      records.add(ImageRecord.of(i, i, TestImages.png(1, 2, 1, (y, x, c) -> 10 * s + x)));
    }
    return TestImages.write(dir.resolve("gray.rec"), records);
  }

  @Test
  void everyConsumerSeesEveryBatchOnceAndABufferIsReusedOnlyAfterAllReleasedIt() throws Exception {
    int consumers = 3;
    Set<Thread> before = EngineThreads.live();
    // 9 images in batches of 2 under roundBatch(false) (PAD_CONSTANT): labels 0..8 and one padded row.
    // Two reader threads and one batch of prefetch: 3 buffers, so while the three consumers hold a
    // batch the readers can fill the others; a buffer handed back early would change what is held.
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(records(9)).dataShape(1, 1, 2).batchSize(2)
        .roundBatch(false).preprocessThreads(2).prefetchBuffer(1).build()) {
      Multicast<NamedBatch> m = p.multicast(consumers);
      CyclicBarrier together = new CyclicBarrier(consumers);
      ExecutorService pool = Executors.newFixedThreadPool(consumers);
      try {
        List<Future<List<Integer>>> seen = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
          PipelineIterator<NamedBatch> it = m.consumer(c);
          seen.add(pool.submit(() -> {
            List<Integer> labels = new ArrayList<>();
            try (it) {
              while (it.hasNext()) {
                NamedBatch b = it.next();
                float[] held = b.data().get(0).dup().data().asFloat();
                together.await(20, TimeUnit.SECONDS);   // every consumer holds this batch now
                assertArrayEquals(held, b.data().get(0).dup().data().asFloat());
                for (int r = 0; r < b.countSamples(); r++) {
                  int label = (int) b.label().get(0).getFloat(r);
                  assertEquals(10f * label, b.data().get(0).getFloat(r, 0, 0, 0));
                  assertEquals(10f * label + 1, b.data().get(0).getFloat(r, 0, 0, 1));
                  labels.add(label);
                }
                together.await(20, TimeUnit.SECONDS);
              }
            }
            return labels;
          }));
        }
        for (Future<List<Integer>> f : seen) {
          assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8), f.get(60, TimeUnit.SECONDS));
        }
      } finally {
        pool.shutdownNow();
      }
      // The epoch ended for all: the provider iterates again, the same batches.
      List<Integer> again = new ArrayList<>();
      for (NamedBatch b : p) {
        for (int r = 0; r < b.countSamples(); r++) {
          again.add((int) b.label().get(0).getFloat(r));
        }
      }
      assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8), again);
    }
    Set<Thread> alive = EngineThreads.awaitOnly(before, 10);
    assertTrue(alive.isEmpty(), "left running: " + EngineThreads.describe(alive));
  }

  @Test
  void aConsumerCountBelowOneIsRefusedAndLeavesTheIterationInProgressRunning() {
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(records(4)).dataShape(1, 1, 2).batchSize(2)
        .build()) {
      List<Integer> labels = new ArrayList<>();
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        NamedBatch first = it.next();
        labels.add((int) first.label().get(0).getFloat(0));
        labels.add((int) first.label().get(0).getFloat(1));
        assertEquals("consumers must be >= 1, got 0",
            assertThrows(IllegalArgumentException.class, () -> p.multicast(0)).getMessage());
        // The refused call started no epoch of its own, so the one in progress goes on.
        while (it.hasNext()) {
          NamedBatch b = it.next();
          for (int r = 0; r < b.countSamples(); r++) {
            labels.add((int) b.label().get(0).getFloat(r));
          }
        }
      }
      assertEquals(List.of(0, 1, 2, 3), labels);
    }
  }
}
