package dev.minibatch.kotlin

import dev.minibatch.kotlin.internal.TaskLoop
import dev.minibatch.runtime.pipeline.PipelineIterator
import dev.minibatch.runtime.reader.Reader
import dev.minibatch.runtime.reader.Readers
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.launch

/** The stage name of a flow's pass: its thread is `minibatch-flow-0`, its failures name stage `flow`. */
private const val FLOW_STAGE = "flow"

/**
 * A reader whose every pass iterates this sequence anew; `iterator(pass)` is the same as
 * `iterator()`, which is right for a sequence that yields the same items each time (over a list, a
 * range, a pure `generateSequence`). A sequence that can be iterated only once (`constrainOnce()`,
 * a sequence over an iterator) fails at the second pass with its own `IllegalStateException`.
 * An `Iterable` needs no adapter: `Readers.from(iterable)`.
 */
public fun <T : Any> Sequence<T>.asReader(): Reader<T> {
    val sequence = this
    return Reader { PipelineIterator.of(sequence.iterator()) }
}

/**
 * A reader whose every pass collects this flow anew on a runtime thread (`minibatch-flow-0`, one per
 * pass) and hands the samples to the pass's blocking iterator through a queue of at most [capacity]
 * samples (0 for unbounded), the queue of `Readers.generate`. A cold flow over fixed data therefore
 * gives the same samples every pass, and `iterator(pass)` is the same as `iterator()`; a flow whose
 * collections differ (a hot `SharedFlow`, random draws) gives other samples each pass, so a provider
 * cannot replay an epoch of it to resume: use [flowReader] for that.
 *
 * - The flow runs on its own thread, so it may block (read files) without `flowOn`; operators in it
 *   that change the context (`flowOn`, `buffer`) run their part where they say.
 * - Closing the pass (`PipelineIterator.close`, including a provider's epoch ending early) cancels
 *   the collection and waits for it: the flow's `finally` blocks and `onCompletion` have run and
 *   its thread has ended when `close()` returns. The same when the pass ends normally.
 * - An exception in the flow ends the pass: the iterator's next `hasNext()` or `next()` throws a
 *   `StageFailedException` of stage `flow` whose `sampleIndex()` is the number of samples the flow
 *   had emitted and whose cause is the flow's exception. As with every runtime stage, it comes at
 *   once: samples still queued are dropped.
 * - Samples are handed over in small groups when they come fast, as by `Readers.generate` (up to
 *   `capacity / 2`); when the flow suspends waiting for something outside (a `delay`, an upstream
 *   `flowOn`, a channel), what it emitted is handed over at once ([dev.minibatch.runtime.pipeline.Generator.Emitter.flush]), so
 *   no sample waits with it.
 *
 * @throws IllegalArgumentException now if [capacity] is negative
 */
public fun <T : Any> Flow<T>.asReader(capacity: Int = Readers.DEFAULT_GENERATOR_BUFFER): Reader<T> {
    checkCapacity(capacity)
    val flow = this
    return Reader { collectPass(flow, capacity) }
}

/**
 * A reader whose pass number `p` collects the flow `passes(p)`, as [asReader] does: for flows that
 * differ from pass to pass (seeded by the pass, reading the part of a stream that belongs to it).
 * `iterator(pass)` collects `passes(pass)`, so starting pass `p` again gives the flow of pass `p`
 * (what a provider replays to resume); `iterator()` counts the passes it started, from 0.
 *
 * @throws IllegalArgumentException now if [capacity] is negative
 */
public fun <T : Any> flowReader(capacity: Int = Readers.DEFAULT_GENERATOR_BUFFER, passes: (pass: Int) -> Flow<T>): Reader<T> {
    checkCapacity(capacity)
    return PassFlowReader(capacity, passes)
}

/**
 * Runs [block] on one pass of this reader as a sequence, and closes the pass however [block] ends
 * (a `break`, an early `return`, `take(n)`, an exception), which stops its threads at once.
 */
public inline fun <T : Any, R> Reader<T>.usePass(block: (Sequence<T>) -> R): R = iterator().use { block(it.asSequence()) }

private class PassFlowReader<T : Any>(private val capacity: Int, private val passes: (pass: Int) -> Flow<T>) : Reader<T> {
    private val started = AtomicInteger()

    override fun iterator(): PipelineIterator<T> = iterator(started.getAndIncrement())

    override fun iterator(pass: Int): PipelineIterator<T> = collectPass(passes(pass), capacity)
}

private fun checkCapacity(capacity: Int) {
    require(capacity >= 0) { "capacity must be >= 0 (0 = unbounded), got $capacity" }
}

/**
 * One pass: the runtime's producer stage, `Readers.generate` (its thread, bounded queue, failure and stop handling)
 * with the flow collected on that thread by a [TaskLoop]. The runtime stops the stage by closing its
 * queue, so the blocked `emit` throws and unwinds the flow, and by interrupting the thread, which
 * here cancels a flow suspended elsewhere (a `delay`, an upstream `flowOn`).
 */
private fun <T : Any> collectPass(flow: Flow<T>, capacity: Int): PipelineIterator<T> =
    Readers.generate<T>(FLOW_STAGE, capacity) { out ->
        val loop = TaskLoop()
        var failure: Throwable? = null
        val collection = CoroutineScope(loop).launch {
            try {
                flow.collect { out.emit(it) }
            } catch (t: Throwable) {
                // Kept, not thrown: thrown it would go to the scope's uncaught-exception handler. The
                // producer stage reports it (or ignores it, once the consumer has gone).
                failure = t
            }
        }
        var stopped: RuntimeException? = null
        // The flow is suspended, waiting for something outside: what it emitted goes over now
        // rather than waiting with it. A flush that finds the consumer gone cancels the collection.
        val flush = {
            if (stopped == null) {
                try {
                    out.flush()
                } catch (e: RuntimeException) {
                    stopped = e
                    collection.cancel()
                }
            }
        }
        loop.runUntil(collection, flush) { collection.cancel() }
        stopped?.let { throw it }
        failure?.let { throw it }
    }.iterator()
