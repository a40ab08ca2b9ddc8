package dev.minibatch.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.minibatch.runtime.Settings;
import org.junit.jupiter.api.Test;

/** The one ring rule of reader threads, worked out by hand from {@link Settings.Workers}. */
class ReaderThreadsTest {
  @Test
  void theRingHoldsPrefetchBufferPlusTwoBuffersAndPrefetchBufferDefaultsToOneMoreThanTheThreads() {
    // readers(3): prefetchBuffer 4 by default, a ring of 6.
    assertEquals(new ReaderThreads("t", 3, 6, false), ReaderThreads.of("t", Settings.builder().readers(3).build().workers()));
    // readers(2).prefetchBuffer(5): a ring of 7.
    assertEquals(new ReaderThreads("t", 2, 7, false),
        ReaderThreads.of("t", Settings.builder().readers(2).prefetchBuffer(5).build().workers()));
    assertNull(ReaderThreads.of("t", Settings.none().workers()), "readers 0: the consumer's thread writes");
  }

  @Test
  void inMemoryAtMostOneThreadFewerThanTheProcessorsStartsAndTheRingFollowsThem() {
    int started = Math.min(4, Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
    assertEquals(new ReaderThreads("m", started, started + 3, true),
        ReaderThreads.inMemory("m", Settings.builder().readers(4).build().workers()));
  }

  @Test
  void autotunedTheMostTheTunerMayUseIsTheBudgetsCpusAndTwiceAsManyBatchesAheadPlusTwo() {
    Settings.Autotune budget = new Settings.Autotune(3, 1 << 20);
    // 3 threads, 2 * 3 + 2 = 8 ahead, a ring of 10.
    assertEquals(new ReaderThreads("t", 3, 10, false, budget),
        ReaderThreads.of("t", Settings.builder().autotune(budget).build().workers()));
  }
}
