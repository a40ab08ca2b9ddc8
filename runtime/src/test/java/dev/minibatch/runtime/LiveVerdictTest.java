package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.engine.PrefetchingProvider;
import dev.minibatch.runtime.example.ComputedProvider;
import dev.minibatch.runtime.pipeline.LiveVerdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The live verdict on four injected bottlenecks of a real engine provider, each ten times or more
 * slower than the rest of the pipeline: slow reads (reader threads that sleep, as on slow storage),
 * slow decode (reader threads computing on every core), too few reader threads (one computing
 * thread on a machine with more cores), and a slow consumer (the model: no line). The lines are
 * captured where {@link System.Logger} sends them without a logging backend, {@code
 * java.util.logging}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LiveVerdictTest {
  private static final int CORES = Runtime.getRuntime().availableProcessors();
  /** Held strongly: java.util.logging keeps its loggers weakly, and with them our handler. */
  private static final Logger JUL = Logger.getLogger(LiveVerdict.LOGGER);

  private final List<LogRecord> lines = new ArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public synchronized void publish(LogRecord r) {
      lines.add(r);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void captureTheLines() {
    JUL.addHandler(capture);
    JUL.setUseParentHandlers(false);
  }

  @AfterEach
  void restore() {
    JUL.removeHandler(capture);
    JUL.setUseParentHandlers(true);
    LiveVerdict.set(LiveVerdict.DEFAULT);
  }

  static float sleepy(int sample, int k) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    return sample;
  }

  static float busy(int sample, int k) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
    long x = 0;
    while (System.nanoTime() < end) {
      x++;
    }
    return sample + x * 0;
  }

  private static ComputedProvider provider(ComputedProvider.Feature feature, int readers) {
    return ComputedProvider.builder().samples(256, 1, feature).batchSize(8).readers(readers).build();
  }

  /**
   * The lines logged while epochs of {@code p} run for {@code seconds}, a consumer taking {@code
   * consumerMillis} per batch, the verdict judging every half second; after one epoch unjudged, so
   * that the JVM's warm-up (compilation, first allocations) is not in the windows.
   */
  private List<String> verdicts(BatchProvider<NamedBatch> p, double seconds, long consumerMillis) {
    LiveVerdict.off();
    epoch(p, consumerMillis);
    LiveVerdict.set(new LiveVerdict(0.2, Duration.ofMillis(500)));
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      epoch(p, consumerMillis);
    }
    synchronized (capture) {
      for (LogRecord r : lines) {
        assertEquals(Level.WARNING, r.getLevel(), r.getMessage());
      }
      return lines.stream().map(LogRecord::getMessage).toList();
    }
  }

  private static void epoch(BatchProvider<NamedBatch> p, long consumerMillis) {
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
        if (consumerMillis > 0) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(consumerMillis));
        }
      }
    }
  }

  @Test
  void slowReadsOnEveryCoreAskForMoreReadersToKeepMoreReadsInFlight() {
    try (ComputedProvider p = provider(LiveVerdictTest::sleepy, CORES)) {
      List<String> got = verdicts(p, 3, 0);
      assertEquals(1, got.size(), got::toString);
      String line = got.get(0);
      assertTrue(line.startsWith("ComputedProvider: input-bound: the consumer waited for batches "), line);
      assertTrue(line.contains("limiting stage computed[" + CORES + "]"), line);
      assertTrue(line.contains("they wait, e.g. on storage): raise readers(n) above " + CORES), line);
    }
  }

  @Test
  void slowDecodeOnEveryCoreAsksForCheaperDecodingNotMoreReaders() {
    try (ComputedProvider p = provider(LiveVerdictTest::busy, CORES)) {
      List<String> got = verdicts(p, 3, 0);
      assertEquals(1, got.size(), got::toString);
      String line = got.get(0);
      assertTrue(line.contains("limiting stage computed[" + CORES + "]"), line);
      assertTrue(line.contains("on all " + CORES + " cores): more readers cannot help; make the decoding and"
          + " augmentation cheaper"), line);
    }
  }

  @Test
  void tooFewReaderThreadsAskForMoreReadersUpToTheCores() {
    try (ComputedProvider p = provider(LiveVerdictTest::busy, 1)) {
      List<String> got = verdicts(p, 3, 0);
      assertEquals(1, got.size(), got::toString);
      String line = got.get(0);
      assertTrue(line.contains("limiting stage computed[1] (busy "), line);
      // The table's row for the machine: fewer readers than cores, or (one core) every core decoding.
      assertTrue(line.contains(CORES >= 2
          ? "raise readers(n) (preprocessThreads(n) for images) from 1 towards " + CORES
          : "more readers cannot help; make the decoding and augmentation cheaper"), line);
    }
  }

  @Test
  void aSlowConsumerIsTheModelsTimeAndGetsNoLine() {
    // The reader needs about 10 µs a batch, the consumer 20 ms: a thousand times slower.
    try (ComputedProvider p = provider((i, k) -> i, 1)) {
      List<String> got = verdicts(p, 3, 20);
      assertEquals(List.of(), got);
    }
  }

  @Test
  void batchesMadeOnTheConsumersThreadAskForReaderThreads() {
    try (ComputedProvider p = provider(LiveVerdictTest::busy, 0)) {
      List<String> got = verdicts(p, 2, 0);
      assertEquals(1, got.size(), got::toString);
      assertTrue(got.get(0).contains("the batches are made on the consumer's thread (ComputedProvider[1], busy "),
          got.get(0));
      assertTrue(got.get(0).contains("set readers(n)"), got.get(0));
    }
  }

  @Test
  void aWrappedProviderIsJudgedOnceByTheWrapperThatTheModelReads() {
    // The wrapped epoch is read by the wrapper's next(): its own consumer is not the model.
    try (ComputedProvider inner = provider(LiveVerdictTest::busy, 1);
        PrefetchingProvider<NamedBatch> p = PrefetchingProvider.of(inner)) {
      List<String> got = verdicts(p, 3, 0);
      assertEquals(1, got.size(), got::toString);
      assertTrue(got.get(0).startsWith("PrefetchingProvider: input-bound"), got.get(0));
      assertTrue(got.get(0).contains("limiting stage computed[1] (busy "), got.get(0));
    }
  }

  @Test
  void offLogsNothing() {
    try (ComputedProvider p = provider(LiveVerdictTest::busy, 0)) {
      LiveVerdict.set(new LiveVerdict(0.2, Duration.ofMillis(100)));
      LiveVerdict.off();
      for (int e = 0; e < 3; e++) {
        epoch(p, 0);
      }
      synchronized (capture) {
        assertEquals(List.of(), lines.stream().map(LogRecord::getMessage).toList());
      }
    }
  }
}
