/**
 * What the parallel pipeline shows its users: {@link dev.minibatch.runtime.pipeline.PipelineIterator}
 * (an iterator that reports {@link dev.minibatch.runtime.pipeline.PipelineStats}), {@link
 * dev.minibatch.runtime.pipeline.ParallelOptions} for a parallel map, the {@link
 * dev.minibatch.runtime.pipeline.SampleContext} a map function sees, the {@link
 * dev.minibatch.runtime.pipeline.Generator} a producer thread runs, {@link
 * dev.minibatch.runtime.pipeline.StageFailedException}, which names the stage and the sample, and
 * {@link dev.minibatch.runtime.pipeline.Progress}, a console bar over any iterator (a provider's
 * epoch included) that names the bottleneck.
 *
 * <p>Guarantees of the thread engine behind them ({@code dev.minibatch.runtime.internal.pipeline},
 * not API): every queue is bounded (in items) unless asked otherwise; no thread spins while waiting;
 * items cross threads in chunks whose size adapts to the cost of an item; a failure in a worker
 * reaches the consumer at its next call as a {@code StageFailedException}; closing an iterator — or
 * dropping it, which the garbage collector notices — stops every thread it started. Worker threads
 * are daemon threads named {@code minibatch-worker-<stage>-<n>}.
 */
@NullMarked
package dev.minibatch.runtime.pipeline;

import org.jspecify.annotations.NullMarked;
