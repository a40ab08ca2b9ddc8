package dev.minibatch.runtime.pipeline;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/** The live counters of one stage; workers add to them per chunk, snapshots read them. */
final class StageCounters {
  final String name;
  final int workers;
  final int capacity;
  private final long start = System.nanoTime();
  private volatile long end;
  final LongAdder items = new LongAdder();
  final LongAdder busy = new LongAdder();
  final LongAdder waitInput = new LongAdder();
  final LongAdder blockedOutput = new LongAdder();
  final LongAdder consumerWait = new LongAdder();
  private final IntSupplier depth;

  StageCounters(String name, int workers, int capacity, IntSupplier depth) {
    this.name = name;
    this.workers = workers;
    this.capacity = capacity;
    this.depth = depth;
  }

  /** Freezes the wall clock at the first call. */
  void ended() {
    if (end == 0) {
      end = System.nanoTime();
    }
  }

  StageStats snapshot() {
    long e = end;
    long wall = (e == 0 ? System.nanoTime() : e) - start;
    return new StageStats(name, workers, items.sum(), busy.sum(), waitInput.sum(), blockedOutput.sum(),
        consumerWait.sum(), wall, depth.getAsInt(), capacity);
  }
}
