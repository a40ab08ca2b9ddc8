/**
 * The parallel pipeline engine under readers and providers: a producer thread with a bounded
 * hand-off ({@link dev.minibatch.runtime.pipeline.Stages#generate}, {@link
 * dev.minibatch.runtime.pipeline.Stages#prefetch}), a parallel map that keeps or relaxes the
 * source order ({@link dev.minibatch.runtime.pipeline.Stages#parallelMap}), a multicast of one
 * stream to several consumers ({@link dev.minibatch.runtime.pipeline.Multicast}), per-stage
 * counters ({@link dev.minibatch.runtime.pipeline.PipelineStats}) and a progress display ({@link
 * dev.minibatch.runtime.pipeline.Progress}).
 *
 * <p>Guarantees: every queue is bounded (in items) unless asked otherwise; no thread spins while
 * waiting; items cross threads in chunks whose size adapts to the cost of an item, so cheap items
 * cost well under a microsecond each and expensive ones are handed over at once; a failure in a
 * worker reaches the consumer at its next call as a {@link
 * dev.minibatch.runtime.pipeline.StageFailedException} naming the stage and the sample; closing an
 * iterator — or dropping it, which the garbage collector notices — stops every thread it started.
 * Worker threads are daemon threads named {@code minibatch-worker-<stage>-<n>}.
 */
@NullMarked
package dev.minibatch.runtime.pipeline;

import org.jspecify.annotations.NullMarked;
