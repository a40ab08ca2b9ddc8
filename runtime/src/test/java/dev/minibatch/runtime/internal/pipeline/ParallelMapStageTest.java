package dev.minibatch.runtime.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParallelMapStageTest {

  /** The ints {@code [0, n)}; closing it fails, as a source whose file went away would. */
  static final class FailingClose implements PipelineIterator<Integer> {
    final int n;
    int i;

    FailingClose(int n) {
      this.n = n;
    }

    @Override
    public boolean hasNext() {
      return i < n;
    }

    @Override
    public Integer next() {
      if (i >= n) {
        throw new NoSuchElementException();
      }
      return i++;
    }

    @Override
    public void close() {
      throw new IllegalStateException("disk gone");
    }
  }

  @Test
  void aSourceThatFailsToCloseAlwaysReachesTheConsumerNeverAQuietEnd() {
    List<Integer> all = List.of(0, 2, 4, 6, 8, 10, 12, 14, 16, 18);
    // Repeated: whether the consumer is ahead of the closing worker or behind it is up to the threads.
    for (int round = 0; round < 20; round++) {
      for (int workers : new int[] {1, 2, 3}) {
        PipelineIterator<Integer> it = Stages.parallelMap(new FailingClose(10),
            ParallelOptions.of(workers, 4, true), (Integer x) -> 2 * x);
        List<Integer> seen = new ArrayList<>();
        // The end waits for every worker to leave, and the last one closes the source first; like
        // any failure, it reaches the consumer at its next call (items still queued are dropped).
        StageFailedException e = assertThrows(StageFailedException.class, () -> {
          while (it.hasNext()) {
            seen.add(it.next());
          }
        }, workers + " workers, round " + round);
        assertEquals(all.subList(0, seen.size()), seen, "in order, without gaps");
        assertEquals("source of xmap", e.stage());
        assertEquals(StageFailedException.NO_SAMPLE, e.sampleIndex());
        assertEquals("disk gone", e.getCause().getMessage());
        assertFalse(it.hasNext());
      }
    }
  }

  @Test
  void aSourceThatClosesCleanlyEndsAfterEveryItem() {
    PipelineIterator<Integer> source = PipelineIterator.of(List.of(1, 2, 3, 4, 5).iterator());
    PipelineIterator<Integer> it = Stages.parallelMap(source, ParallelOptions.of(2, 1, true), (Integer x) -> x + 1);
    List<Integer> seen = new ArrayList<>();
    while (it.hasNext()) {
      seen.add(it.next());
    }
    assertEquals(List.of(2, 3, 4, 5, 6), seen);
    StageStats xmap = it.stats().stages().stream().filter(st -> st.name().equals("xmap")).findFirst().orElseThrow();
    assertEquals(5, xmap.items());
    assertEquals(2, xmap.workers());
  }
}
