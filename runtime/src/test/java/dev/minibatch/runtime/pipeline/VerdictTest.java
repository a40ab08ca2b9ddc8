package dev.minibatch.runtime.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The verdict table on hand-made windows of 10 s (docs/pipeline.md, "The live verdict"). */
class VerdictTest {
  private static final long S = 1_000_000_000L;

  /** A stage over a 10 s window. */
  private static StageStats stage(String name, int workers, double busy, double blocked, double consumerWait) {
    return new StageStats(name, workers, 100, (long) (busy * workers * 10 * S), 0, (long) (blocked * workers * 10 * S),
        (long) (consumerWait * 10 * S), 10 * S, 0, 4);
  }

  private static StageStats own(double waited) {
    return stage("P", 1, 0.01, 0, waited);
  }

  private static Optional<Verdict> of(long cpuNanos, int cores, StageStats... stages) {
    return Verdict.of("P", new PipelineStats(List.of(stages)), 0.2, cpuNanos, cores);
  }

  @Test
  void silentBelowTheThreshold() {
    // The consumer waited 1.9 s of 10 s: 19 % < 20 %, whatever the readers do.
    assertEquals(Optional.empty(), of(-1, 8, stage("r", 1, 1, 0, 0.19), own(0.19)));
  }

  @Test
  void theMostUpstreamStageWaitedOnIsNamed() {
    // The readers waited 6 s of 10 on the read-ahead; the consumer 5 s on the readers.
    Verdict v = of(-1, 8, stage("shard-read-ahead", 1, 0.9, 0, 0.6), stage("r", 2, 0.95, 0, 0.5), own(0.5)).orElseThrow();
    assertEquals("shard-read-ahead[1]", v.stage());
    assertEquals("readAhead", v.knob());
    assertTrue(v.line().startsWith("P: input-bound: the consumer waited for batches 50% of the last 10 s; limiting stage "
        + "shard-read-ahead[1] (batches waited for shard files 60% of the time): raise readAhead(n)"), v.line());
  }

  @Test
  void readersBlockedOnAFullRingWhileTheConsumerWaitsAskForALargerBuffer() {
    Verdict v = of(-1, 8, stage("r", 2, 0.6, 0.3, 0.4), own(0.4)).orElseThrow();
    assertEquals("prefetchBuffer", v.knob());
    assertTrue(v.line().contains("limiting stage r[2] (busy 60%, blocked on a full ring 30%"), v.line());
  }

  @Test
  void readersBelowTheCoresAskForMoreReaders() {
    Verdict v = of(-1, 8, stage("r", 3, 1, 0, 0.9), own(0.9)).orElseThrow();
    assertEquals("readers", v.knob());
    assertTrue(v.line().contains("limiting stage r[3] (busy 100%): raise readers(n) (preprocessThreads(n) for images) "
        + "from 3 towards 8"), v.line());
  }

  @Test
  void readersOnEveryCoreAreToldApartByTheirThreadsCpu() {
    // 4 readers on 4 cores for 10 s: 40 core-seconds. 2 s of their CPU is 5 %: waiting; 20 s is 50 %: computing.
    Verdict waiting = of(2 * S, 4, stage("r", 4, 1, 0, 0.9), own(0.9)).orElseThrow();
    assertEquals("readers", waiting.knob());
    assertTrue(waiting.line().contains("its threads used 5% of 4 cores: they wait, e.g. on storage): raise "
        + "readers(n) above 4"), waiting.line());
    Verdict computing = of(20 * S, 4, stage("r", 4, 1, 0, 0.9), own(0.9)).orElseThrow();
    assertEquals("cheaper-decode", computing.knob());
    assertTrue(computing.line().contains("(busy 100%, threads' CPU 50% on all 4 cores): more readers cannot help"),
        computing.line());
  }

  @Test
  void withoutThreadedStagesTheConsumersThreadMakesTheBatches() {
    StageStats own = new StageStats("P", 1, 100, 8 * S, 0, 0, 9 * S, 10 * S, 0, 1);
    Verdict v = of(-1, 8, own).orElseThrow();
    assertEquals("P[1]", v.stage());
    assertTrue(v.line().contains("waited for batches 90% of the last 10 s; the batches are made on the consumer's "
        + "thread (P[1], busy 80%): set readers(n)"), v.line());
  }
}
