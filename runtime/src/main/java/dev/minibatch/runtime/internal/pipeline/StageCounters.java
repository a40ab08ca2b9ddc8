package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The live counters of one stage: its workers add to them (per chunk or per batch, never per
 * sample), {@link #snapshot()} reads them from any thread. Public so that stages outside this
 * package (the batching engine's reader threads and its consumer-side iterator) report in the same
 * form as the pipeline's stages; adding is a few nanoseconds and allocates nothing.
 *
 * <p>It is also the one place a trace is recorded: while a {@link TraceRecording} is active, every
 * time added here is kept as one event of the calling thread too (the same nanoseconds, so the
 * trace sums to the stats). Off, that costs each add one volatile read and a branch.
 */
public final class StageCounters {
  final String name;
  /** Volatile: a tuned stage changes them while it runs, and a snapshot reports the current ones. */
  private volatile int workers;
  private volatile int capacity;
  private final long start = System.nanoTime();
  private volatile long end;
  final LongAdder items = new LongAdder();
  final LongAdder busy = new LongAdder();
  final LongAdder waitInput = new LongAdder();
  final LongAdder blockedOutput = new LongAdder();
  final LongAdder consumerWait = new LongAdder();
  /** Bytes read from storage, for a stage that reads it. */
  final LongAdder bytes = new LongAdder();
  private final IntSupplier depth;

  /**
   * Counters of a stage, its wall clock starting now.
   *
   * @param name the stage's name in stats
   * @param workers its number of threads
   * @param capacity its output queue's capacity in items
   * @param depth reads the output queue's depth at a snapshot
   */
  public StageCounters(String name, int workers, int capacity, IntSupplier depth) {
    this.name = name;
    this.workers = workers;
    this.capacity = capacity;
    this.depth = depth;
  }

  /**
   * The stage now runs {@code workers} threads into an output of {@code capacity} items (a tuner
   * changed them); snapshots from now on report these.
   */
  public void resized(int workers, int capacity) {
    this.workers = workers;
    this.capacity = capacity;
  }

  /** Adds {@code n} bytes read from storage (a shard file fetched from its file system). */
  public void addBytes(long n) {
    bytes.add(n);
  }

  /** Adds {@code n} items handed to the consumer. */
  public void addItems(long n) {
    items.add(n);
  }

  /** Adds time the workers spent on the stage's work, ending now. */
  public void addBusy(long nanos) {
    busy.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, TraceRecording.BUSY, System.nanoTime(), nanos, -1, 0);
    }
  }

  /**
   * Adds time a worker spent on the stage's work, ending at {@code end} ({@code System.nanoTime()}),
   * on {@code items} items from the stage's item {@code first} (-1 if not known).
   */
  public void addBusy(long end, long nanos, long first, int items) {
    busy.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, TraceRecording.BUSY, end, nanos, first, items);
    }
  }

  /** Adds time a worker spent writing batch {@code batch} of the epoch, ending at {@code end}. */
  public void addBatchBusy(long end, long nanos, long batch) {
    busy.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, TraceRecording.BUSY, end, nanos, batch, -1);
    }
  }

  /** Adds time the workers spent waiting for input, ending at {@code end} (0: now). */
  public void addWaitInput(long end, long nanos) {
    waitInput.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, TraceRecording.WAIT_INPUT, end == 0 ? System.nanoTime() : end, nanos, -1, 0);
    }
  }

  /** Adds time the workers spent waiting for input, ending now. */
  public void addWaitInput(long nanos) {
    addWaitInput(0, nanos);
  }

  /** Adds time the workers spent blocked on a full output, ending at {@code end} (0: now). */
  public void addBlockedOutput(long end, long nanos) {
    blockedOutput.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, TraceRecording.BLOCKED, end == 0 ? System.nanoTime() : end, nanos, -1, 0);
    }
  }

  /** Adds time the workers spent blocked on a full output, ending now. */
  public void addBlockedOutput(long nanos) {
    addBlockedOutput(0, nanos);
  }

  /** Adds time the consumer spent waiting for the stage, ending at {@code end} (0: now). */
  public void addConsumerWait(long end, long nanos) {
    consumerWait.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, TraceRecording.CONSUMER_WAIT, end == 0 ? System.nanoTime() : end, nanos, -1, 0);
    }
  }

  /** Adds time the consumer spent waiting for the stage, ending now. */
  public void addConsumerWait(long nanos) {
    addConsumerWait(0, nanos);
  }

  /**
   * Adds a consumer's call on a stage that runs on the consumer's thread (the engine's epoch
   * iterator), ending at {@code end}: its time is the stage's work and the consumer's wait for it.
   * A call that delivered batch {@code batch} (0 for the iteration's first) counts it as an item;
   * -1: a call that delivered none ({@code hasNext()}).
   */
  public void addCall(long end, long nanos, long batch) {
    if (batch >= 0) {
      items.increment();
    }
    busy.add(nanos);
    consumerWait.add(nanos);
    TraceRecording t = TraceRecording.active();
    if (t != null) {
      t.record(this, batch >= 0 ? TraceRecording.NEXT : TraceRecording.HAS_NEXT, end, nanos, batch,
          batch >= 0 ? -1 : 0);
    }
  }

  /** Freezes the wall clock at the first call. */
  public void ended() {
    if (end == 0) {
      end = System.nanoTime();
    }
  }

  /** The counters now. */
  public StageStats snapshot() {
    long e = end;
    long wall = (e == 0 ? System.nanoTime() : e) - start;
    return new StageStats(name, workers, items.sum(), busy.sum(), waitInput.sum(), blockedOutput.sum(),
        consumerWait.sum(), wall, depth.getAsInt(), capacity, bytes.sum());
  }

  // Where the last window ended, and the window open now: the next counts items and bytes from
  // that end, and ends an open one first (an iteration left without ending it).
  private @Nullable StageStats lastEnd;
  private @Nullable Window open;

  /**
   * A view of these counters over one iteration, for a stage that outlives its iterations (a shard
   * cache's read-ahead serves epoch after epoch), until {@link Window#end()}: the items and bytes
   * counted since the last window ended (since now for the first), so files read between two
   * iterations (read ahead for the next epoch) are the next one's; the times and the wall from now,
   * so the time spent between iterations, in none, does not count against a shorter wall. A window
   * still open (its iteration left without ending it) is ended first.
   */
  public synchronized Window window() {
    Window o = open;
    if (o != null) {
      o.end();
    }
    StageStats now = snapshot();
    StageStats e = lastEnd;
    Window w = new Window(e == null ? now : new StageStats(name, workers, e.items(), now.busyNanos(),
        now.waitInputNanos(), now.blockedOutputNanos(), now.consumerWaitNanos(), now.wallNanos(), now.queueDepth(),
        capacity, e.bytes()));
    open = w;
    return w;
  }

  /** Records {@code w}'s end, unless a later window has opened since (then that one counts on). */
  private synchronized void ended(Window w, StageStats at) {
    if (open == w) {
      lastEnd = at;
      open = null;
    }
  }

  /** What {@link #window()} returns; safe to read from any thread. */
  public final class Window {
    private final StageStats from;
    private volatile @Nullable StageStats to;

    private Window(StageStats from) {
      this.from = from;
    }

    /** Freezes the window at the first call: later items and bytes belong to the next window. */
    public void end() {
      if (to == null) {
        StageStats t = StageCounters.this.snapshot();
        to = t;
        ended(this, t);
      }
    }

    /** The counts since the window opened (until it ended), with the queue's depth at the end or now. */
    public StageStats snapshot() {
      StageStats t = to;
      StageStats now = t != null ? t : StageCounters.this.snapshot();
      return new StageStats(name, workers, now.items() - from.items(), now.busyNanos() - from.busyNanos(),
          now.waitInputNanos() - from.waitInputNanos(), now.blockedOutputNanos() - from.blockedOutputNanos(),
          now.consumerWaitNanos() - from.consumerWaitNanos(), now.wallNanos() - from.wallNanos(), now.queueDepth(),
          capacity, now.bytes() - from.bytes());
    }
  }
}
