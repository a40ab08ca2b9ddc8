package dev.minibatch.runtime.trace;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.internal.pipeline.TraceRecording;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A trace of every pipeline stage in this JVM: each stretch of work and each wait, on the thread
 * that did it, from {@link #start()} to {@link #stop()}, exported as Chrome trace-event JSON that
 * opens in Perfetto's UI ({@code ui.perfetto.dev}) and in {@code chrome://tracing}, one track per
 * thread.
 *
 * <pre>{@code
 * try (PipelineTrace trace = PipelineTrace.start()) {
 *   try (BatchIterator<NamedBatch> it = provider.iterator()) {
 *     while (it.hasNext()) { NamedBatch b = it.next(); ... }
 *   }
 *   trace.writeJson(Path.of("epoch.json"));
 * }
 * }</pre>
 *
 * <p>The events are the stats' own measurements ({@code PipelineStats}): every time a stage's
 * counters gain busy, input-wait, blocked or consumer-wait time while the trace records is also kept
 * as one event, so a stage's events sum to what its stats gained meanwhile. A trace may start and
 * stop while providers run (it sees the stages of every provider and reader in the JVM, whenever
 * they started), and may be written while it still records (a snapshot). One trace records at a
 * time.
 *
 * <p>Off — no trace recording — a stage pays one volatile read per counter update. On, an event
 * costs a thread-local lookup and a few stores into that thread's preallocated arrays. Memory is
 * bounded: each thread keeps its first {@code maxEventsPerThread} events (33 bytes each) and counts
 * the rest as dropped; the JSON says how many, in {@code otherData.droppedEvents} and as an instant
 * event at the end of each thread that dropped some.
 */
public final class PipelineTrace implements AutoCloseable {
  /** The events each thread keeps by default: 131 072, about 4.3 MB per recording thread at most. */
  public static final int DEFAULT_MAX_EVENTS_PER_THREAD = TraceRecording.DEFAULT_MAX_EVENTS_PER_THREAD;

  private final TraceRecording recording;

  private PipelineTrace(TraceRecording recording) {
    this.recording = recording;
  }

  /**
   * Starts recording, each thread keeping at most {@link #DEFAULT_MAX_EVENTS_PER_THREAD} events.
   *
   * @throws IllegalStateException if another trace is recording
   */
  public static PipelineTrace start() {
    return start(DEFAULT_MAX_EVENTS_PER_THREAD);
  }

  /**
   * Starts recording, each thread keeping at most {@code maxEventsPerThread} events (its first ones).
   *
   * @throws IllegalArgumentException if {@code maxEventsPerThread} is below 1
   * @throws IllegalStateException if another trace is recording
   */
  public static PipelineTrace start(int maxEventsPerThread) {
    return new PipelineTrace(TraceRecording.start(maxEventsPerThread));
  }

  /** Stops recording; idempotent. The events stay, to be written. */
  public void stop() {
    recording.stop();
  }

  /** The same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  /** True until stopped. */
  public boolean recording() {
    return recording.recording();
  }

  /** The events kept so far, over all threads. */
  public long events() {
    return recording.events();
  }

  /** The events dropped so far because a thread had kept its maximum. */
  public long droppedEvents() {
    return recording.droppedEvents();
  }

  /** The trace as Chrome trace-event JSON (see {@link #writeJson(Path)}). */
  public String toJson() {
    StringBuilder sb = new StringBuilder();
    recording.writeJson(sb);
    return sb.toString();
  }

  /**
   * Writes the trace to {@code file} as Chrome trace-event JSON (UTF-8, replacing the file): the
   * object form, with complete events ({@code "ph":"X"}, {@code ts} and {@code dur} in microseconds
   * from the first event) named after the stage for work and after the wait otherwise, whose {@code
   * args} hold the {@code stage}, the {@code kind} and the {@code batch} or the {@code first} item
   * and {@code items}; thread names as metadata events; {@code otherData} with the counts of events
   * kept and dropped.
   *
   * @throws UncheckedIOException naming {@code file} if it cannot be written
   */
  public void writeJson(Path file) {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      recording.writeJson(w);
    } catch (IOException | UncheckedIOException e) {
      IOException cause = e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
      throw IoFailure.of("write", "the pipeline trace to " + file, cause);
    }
  }
}
