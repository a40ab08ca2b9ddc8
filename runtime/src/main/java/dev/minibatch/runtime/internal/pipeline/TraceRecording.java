package dev.minibatch.runtime.internal.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The events of one trace: every time a {@link StageCounters} adds work or a wait while this
 * recording is {@linkplain #active() active}, the same nanoseconds are also kept here as one
 * event, in a buffer of the thread that measured them. So the trace and the stats are one
 * measurement: a stage's busy events sum to exactly the busy time its stats gain meanwhile.
 *
 * <p><b>Cost.</b> Off (no recording active), a counter pays one read of a static volatile field
 * and a branch per add. On, an event is a thread-local lookup and a few stores into preallocated
 * primitive arrays of that thread's buffer: nothing allocated per event, except when a buffer
 * grows (doubling, from 1 024 events up to the cap).
 *
 * <p><b>Bounded.</b> Each thread keeps at most {@code maxEventsPerThread} events, the first ones;
 * later events of that thread are counted as dropped and the export says so. An event takes 33
 * bytes (three longs, an int, a byte and a reference), so a thread holds at most {@code 33 x cap}
 * bytes.
 *
 * <p><b>Threads.</b> A buffer is written only by its thread and published with release stores of
 * its size, so {@link #writeJson} may read it from any thread while recording goes on (a
 * snapshot), or after {@link #stop()}.
 */
public final class TraceRecording {
  /** The events a thread keeps by default: about 4.3 MB per recording thread at most. */
  public static final int DEFAULT_MAX_EVENTS_PER_THREAD = 1 << 17;

  // The kinds of event, one per counter a measured time goes to.
  static final byte BUSY = 0;
  static final byte WAIT_INPUT = 1;
  static final byte BLOCKED = 2;
  static final byte CONSUMER_WAIT = 3;
  /** The consumer's call that delivered a batch (the engine's epoch iterator's next()). */
  static final byte NEXT = 4;
  /** The consumer's call that delivered none (hasNext()). */
  static final byte HAS_NEXT = 5;

  /** The recording counters write to, or null: the one switch, read once per add. */
  private static volatile @Nullable TraceRecording active;

  private final int maxEventsPerThread;
  private final List<ThreadBuffer> buffers = new ArrayList<>();
  private final ThreadLocal<ThreadBuffer> mine = ThreadLocal.withInitial(this::register);
  private volatile boolean stopped;

  private TraceRecording(int maxEventsPerThread) {
    this.maxEventsPerThread = maxEventsPerThread;
  }

  /** The active recording, or null (the common case): what every counter add reads. */
  static @Nullable TraceRecording active() {
    return active;
  }

  /**
   * Starts recording every stage's events in this JVM.
   *
   * @throws IllegalArgumentException if {@code maxEventsPerThread} is below 1
   * @throws IllegalStateException if another recording is active
   */
  public static TraceRecording start(int maxEventsPerThread) {
    if (maxEventsPerThread < 1) {
      throw new IllegalArgumentException("maxEventsPerThread must be at least 1, got " + maxEventsPerThread);
    }
    synchronized (TraceRecording.class) {
      if (active != null) {
        throw new IllegalStateException("a pipeline trace is already recording in this JVM: stop it before starting another");
      }
      TraceRecording r = new TraceRecording(maxEventsPerThread);
      active = r;
      return r;
    }
  }

  /** Stops recording (idempotent); the events stay readable. */
  public void stop() {
    stopped = true;
    synchronized (TraceRecording.class) {
      if (active == this) {
        active = null;
      }
    }
  }

  /** True until {@link #stop()}. */
  public boolean recording() {
    return !stopped;
  }

  void record(StageCounters stage, byte kind, long end, long nanos, long item, int count) {
    mine.get().add(stage, kind, end, nanos, item, count);
  }

  private synchronized ThreadBuffer register() {
    Thread t = Thread.currentThread();
    ThreadBuffer b = new ThreadBuffer(buffers.size() + 1, t.getName(), Math.min(1024, maxEventsPerThread),
        maxEventsPerThread);
    buffers.add(b);
    return b;
  }

  private synchronized List<ThreadBuffer> buffers() {
    return new ArrayList<>(buffers);
  }

  /** Events kept so far, over all threads. */
  public long events() {
    long n = 0;
    for (ThreadBuffer b : buffers()) {
      n += b.published();
    }
    return n;
  }

  /** Events dropped so far because a thread's buffer was full. */
  public long droppedEvents() {
    long n = 0;
    for (ThreadBuffer b : buffers()) {
      n += b.dropped;
    }
    return n;
  }

  /**
   * Writes the events as Chrome trace-event JSON (the object form: {@code traceEvents}, then {@code
   * otherData} with the counts): a {@code process_name} and, per thread that recorded, a {@code
   * thread_name} and {@code thread_sort_index} metadata event ({@code "ph":"M"}), then one complete
   * event ({@code "ph":"X"}) per recorded time with {@code ts} and {@code dur} in microseconds (to
   * the nanosecond) from the earliest event's start, and the stage and batch or items in {@code
   * args}; a thread that dropped events ends with an instant event saying how many.
   */
  public void writeJson(Appendable out) {
    try {
      write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void write(Appendable out) throws IOException {
    List<ThreadBuffer> all = buffers();
    int[] sizes = new int[all.size()];
    long origin = Long.MAX_VALUE;
    for (int k = 0; k < all.size(); k++) {
      ThreadBuffer b = all.get(k);
      sizes[k] = b.published();
      for (int i = 0; i < sizes[k]; i++) {
        origin = Math.min(origin, b.end[i] - b.nanos[i]);
      }
    }
    long pid = ProcessHandle.current().pid();
    long dropped = 0;
    out.append("{\"traceEvents\":[\n");
    out.append("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":").append(Long.toString(pid))
        .append(",\"tid\":0,\"args\":{\"name\":\"minibatch\"}}");
    for (int k = 0; k < all.size(); k++) {
      ThreadBuffer b = all.get(k);
      long lost = b.dropped;
      dropped += lost;
      String tid = Integer.toString(b.tid);
      out.append(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":").append(Long.toString(pid)).append(",\"tid\":")
          .append(tid).append(",\"args\":{\"name\":");
      string(out, b.thread);
      out.append("}}");
      out.append(",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":").append(Long.toString(pid))
          .append(",\"tid\":").append(tid).append(",\"args\":{\"sort_index\":").append(tid).append("}}");
      long last = origin;
      for (int i = 0; i < sizes[k]; i++) {
        out.append(",\n");
        event(out, b, i, origin, pid);
        last = Math.max(last, b.end[i]);
      }
      if (lost > 0) {
        out.append(",\n{\"name\":\"events dropped: ").append(Long.toString(lost))
            .append("\",\"cat\":\"trace\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
        micros(out, last - origin);
        out.append(",\"pid\":").append(Long.toString(pid)).append(",\"tid\":").append(tid)
            .append(",\"args\":{\"droppedEvents\":").append(Long.toString(lost)).append(",\"maxEventsPerThread\":")
            .append(Integer.toString(maxEventsPerThread)).append("}}");
      }
    }
    long kept = 0;
    for (int s : sizes) {
      kept += s;
    }
    out.append("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"producer\":\"minibatch\",\"events\":")
        .append(Long.toString(kept)).append(",\"droppedEvents\":").append(Long.toString(dropped))
        .append(",\"maxEventsPerThread\":").append(Integer.toString(maxEventsPerThread)).append("}}\n");
  }

  private static void event(Appendable out, ThreadBuffer b, int i, long origin, long pid) throws IOException {
    String stage = b.stage[i].name;
    byte kind = b.kind[i];
    out.append("{\"name\":");
    switch (kind) {
      case BUSY -> string(out, stage);
      case WAIT_INPUT -> out.append("\"wait for input\"");
      case BLOCKED -> out.append("\"blocked: output full\"");
      case CONSUMER_WAIT -> string(out, "wait for " + stage);
      case NEXT -> out.append("\"next\"");
      default -> out.append("\"hasNext\"");
    }
    out.append(",\"cat\":\"").append(switch (kind) {
      case BUSY -> "busy";
      case NEXT -> "batch";
      case HAS_NEXT -> "call";
      default -> "wait";
    }).append("\",\"ph\":\"X\",\"ts\":");
    micros(out, b.end[i] - b.nanos[i] - origin);
    out.append(",\"dur\":");
    micros(out, b.nanos[i]);
    out.append(",\"pid\":").append(Long.toString(pid)).append(",\"tid\":").append(Integer.toString(b.tid))
        .append(",\"args\":{\"stage\":");
    string(out, stage);
    out.append(",\"kind\":\"").append(switch (kind) {
      case BUSY -> "busy";
      case WAIT_INPUT -> "wait input";
      case BLOCKED -> "blocked output";
      case CONSUMER_WAIT -> "consumer wait";
      case NEXT -> "next";
      default -> "hasNext";
    }).append('"');
    long item = b.item[i];
    int count = b.count[i];
    if (item >= 0 && count < 0) {
      out.append(",\"batch\":").append(Long.toString(item));
    } else if (count > 0) {
      if (item >= 0) {
        out.append(",\"first\":").append(Long.toString(item));
      }
      out.append(",\"items\":").append(Integer.toString(count));
    }
    out.append("}}");
  }

  /** Nanoseconds as microseconds with three decimals, without a formatter per event. */
  static void micros(Appendable out, long nanos) throws IOException {
    long n = Math.max(0, nanos);
    out.append(Long.toString(n / 1000)).append('.');
    long frac = n % 1000;
    if (frac < 100) {
      out.append('0');
    }
    if (frac < 10) {
      out.append('0');
    }
    out.append(Long.toString(frac));
  }

  private static void string(Appendable out, String s) throws IOException {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  /** One thread's events, as parallel primitive arrays; written by that thread only. */
  static final class ThreadBuffer {
    private static final VarHandle SIZE;

    static {
      try {
        SIZE = MethodHandles.lookup().findVarHandle(ThreadBuffer.class, "size", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final int tid;
    final String thread;
    private final int cap;
    // Written by the owner; an exporter reads them after an acquire read of size, which the owner
    // sets with a release store after the event's fields (and a grown array's reference).
    long[] end;
    long[] nanos;
    long[] item;
    int[] count;
    byte[] kind;
    StageCounters[] stage;
    @SuppressWarnings("unused") // through SIZE
    private int size;
    private int n;
    volatile long dropped;

    ThreadBuffer(int tid, String thread, int initial, int cap) {
      this.tid = tid;
      this.thread = thread;
      this.cap = cap;
      end = new long[initial];
      nanos = new long[initial];
      item = new long[initial];
      count = new int[initial];
      kind = new byte[initial];
      stage = new StageCounters[initial];
    }

    void add(StageCounters s, byte k, long e, long d, long it, int c) {
      int i = n;
      if (i == end.length) {
        if (i >= cap) {
          dropped++;
          return;
        }
        grow(Math.min(cap, 2 * i));
      }
      end[i] = e;
      nanos[i] = d;
      item[i] = it;
      count[i] = c;
      kind[i] = k;
      stage[i] = s;
      n = i + 1;
      SIZE.setRelease(this, i + 1);
    }

    private void grow(int to) {
      end = Arrays.copyOf(end, to);
      nanos = Arrays.copyOf(nanos, to);
      item = Arrays.copyOf(item, to);
      count = Arrays.copyOf(count, to);
      kind = Arrays.copyOf(kind, to);
      stage = Arrays.copyOf(stage, to);
    }

    /** The events an exporter may read. */
    int published() {
      return (int) SIZE.getAcquire(this);
    }
  }
}
