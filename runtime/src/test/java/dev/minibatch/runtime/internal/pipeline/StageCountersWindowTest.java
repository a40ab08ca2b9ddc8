package dev.minibatch.runtime.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A window over a stage that outlives its iterations counts what was added while it was open, and
 * nothing added after it ended; before it opened, only the items and bytes added since the last
 * window ended (read ahead between two iterations).
 */
class StageCountersWindowTest {

  @Test
  void aWindowCountsOnlyWhatWasAddedWhileItWasOpen() {
    AtomicInteger depth = new AtomicInteger(2);
    StageCounters c = new StageCounters("cache", 1, 4, depth::get);
    c.addItems(5);
    c.addBusy(500);
    c.addConsumerWait(50);
    long beforeOpen = System.nanoTime();
    StageCounters.Window w = c.window();
    c.addItems(3);
    c.addBusy(300);
    c.addWaitInput(7);
    c.addBlockedOutput(11);
    c.addConsumerWait(30);
    depth.set(3);
    w.end();
    long afterEnd = System.nanoTime();
    long frozen = w.snapshot().wallNanos();
    c.addItems(2);
    c.addBusy(200);
    c.addConsumerWait(20);
    depth.set(4);
    // The clock moves on past the end (a condition on the clock, not a wait of a chosen time).
    while (System.nanoTime() == afterEnd) {
      Thread.onSpinWait();
    }
    StageStats s = w.snapshot();
    assertEquals("cache", s.name());
    assertEquals(1, s.workers());
    assertEquals(3, s.items());
    assertEquals(300, s.busyNanos());
    assertEquals(7, s.waitInputNanos());
    assertEquals(11, s.blockedOutputNanos());
    assertEquals(30, s.consumerWaitNanos());
    // The depth at the end, the capacity as given; the wall from opening to the end, not to now.
    assertEquals(3, s.queueDepth());
    assertEquals(4, s.queueCapacity());
    assertTrue(s.wallNanos() >= 0 && s.wallNanos() <= afterEnd - beforeOpen, s.toString());
    assertEquals(frozen, s.wallNanos(), "the window's wall stops at its end");
    assertTrue(c.snapshot().wallNanos() > s.wallNanos(), "the stage's own wall goes on");
    // The stage's own counters still hold everything.
    assertEquals(10, c.snapshot().items());
  }

  @Test
  void aWindowAfterAnEndedOneCountsFromThatEnd() {
    StageCounters c = new StageCounters("cache", 1, 4, () -> 1);
    c.addItems(1);
    StageCounters.Window first = c.window();
    c.addItems(3);
    c.addBytes(300);
    first.end();
    // Read ahead between two epochs: the next window counts the file and its bytes, not the time
    // (no iteration's wall covers it).
    c.addItems(2);
    c.addBytes(200);
    c.addBusy(2_000);
    StageCounters.Window second = c.window();
    c.addItems(4);
    c.addBytes(400);
    c.addBusy(40);
    second.end();
    assertEquals(3, first.snapshot().items());
    assertEquals(300, first.snapshot().bytes());
    assertEquals(6, second.snapshot().items());
    assertEquals(600, second.snapshot().bytes());
    assertEquals(40, second.snapshot().busyNanos());
    assertEquals(10, c.snapshot().items());
    // A window left open (its iteration abandoned) is ended by the next, and keeps what it counted.
    StageCounters.Window left = c.window();
    c.addItems(5);
    StageCounters.Window next = c.window();
    c.addItems(1);
    left.end();
    next.end();
    assertEquals(5, left.snapshot().items());
    assertEquals(1, next.snapshot().items());
    // A late end of the abandoned one does not move where the next window counts from.
    StageCounters.Window after = c.window();
    assertEquals(0, after.snapshot().items());
  }

  @Test
  void anOpenWindowReadsTheCountersNow() {
    StageCounters c = new StageCounters("cache", 1, 4, () -> 1);
    c.addItems(4);
    StageCounters.Window w = c.window();
    assertEquals(0, w.snapshot().items());
    c.addItems(6);
    assertEquals(6, w.snapshot().items());
  }
}
