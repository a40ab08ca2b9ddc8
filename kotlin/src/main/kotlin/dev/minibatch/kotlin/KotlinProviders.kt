package dev.minibatch.kotlin

import dev.minibatch.runtime.Batch
import dev.minibatch.runtime.BatchIterator
import dev.minibatch.runtime.BatchProvider
import dev.minibatch.kotlin.internal.TaskLoop
import dev.minibatch.runtime.internal.pipeline.Workers
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext

/** The stage name of an epoch's thread: `minibatch-epoch-flow-0`. */
private const val EPOCH_STAGE = "epoch-flow"

/**
 * One epoch of this provider as a cold [Flow]: each collection starts an epoch (`iterator()`), as a
 * `for` loop over the provider does, and emits its batches in order.
 *
 * - **The collector's thread is not blocked.** The provider's blocking calls (`iterator()`,
 *   `hasNext()`, `next()`, `close()`) run on a thread of their own, `minibatch-epoch-flow-0`, started
 *   for the collection and ended with it; the collector suspends meanwhile. One thread per epoch,
 *   and not a shared pool such as `Dispatchers.IO`: a provider serves one iteration at a time and
 *   remembers the thread that started it (a second live thread starting another gets an
 *   `IllegalStateException`), so every call of an epoch comes from the same thread, and a collection
 *   that overlaps another on the same provider fails loudly instead of depending on which pool
 *   thread it drew. The provider's own reader threads, if it has any, work as in a `for` loop.
 * - **A batch is valid until the collector asks for the next one**, that is until the collector's
 *   block for it returns: the provider then reuses its buffers. Operators that hold batches past
 *   that (`buffer`, `conflate`, `flowOn` after this flow, `toList`, `produceIn`) see overwritten
 *   data; map each batch to what it needs first, or `map { it.copy() }`.
 * - **Cancelling the collector closes the epoch.** The epoch's iterator is closed (a blocked
 *   `next()` is interrupted first), which stops the provider's threads and closes its source, and
 *   the epoch's thread has ended when the collection completes, normally, by an exception or by
 *   cancellation. An exception from the provider reaches the collector as it was thrown.
 *
 * Not kotlinx's `Iterable.asFlow()`, which a provider also has (it is an `Iterable`): that one
 * blocks the collector's thread in `next()` and never closes the epoch.
 */
public fun <B : Batch> BatchProvider<B>.epochFlow(): Flow<B> {
    val provider = this
    return flow {
        val thread = EpochThread()
        try {
            val epoch: BatchIterator<B> = runInterruptible(thread.dispatcher) { provider.iterator() }
            try {
                while (true) {
                    val batch = runInterruptible(thread.dispatcher) { if (epoch.hasNext()) epoch.next() else null }
                        ?: break
                    emit(batch)
                }
            } finally {
                withContext(NonCancellable + thread.dispatcher) { epoch.close() }
            }
        } finally {
            thread.close()
        }
    }
}

/**
 * Runs [block] on one epoch of this provider as a sequence, and closes the epoch however [block]
 * ends (a `break`, an early `return`, `take(n)`, an exception), which stops the provider's threads at
 * once; a `for` loop left early leaves them to the garbage collector. Batches are valid until the
 * sequence moves on, as in a `for` loop.
 */
public inline fun <B : Batch, R> BatchProvider<B>.useEpoch(block: (Sequence<B>) -> R): R =
    iterator().use { block(it.asSequence()) }

/** The thread of one epoch's collection: a runtime worker running a [TaskLoop] until [close]. */
private class EpochThread : AutoCloseable {
    val dispatcher = TaskLoop()
    private val done = Job()
    private val workers = Workers(EPOCH_STAGE)

    init {
        // Interrupts come only from runInterruptible, which cancels the call it interrupted; the
        // loop itself ignores them.
        workers.start { dispatcher.runUntil(done, onIdle = {}, onInterrupt = {}) }
    }

    /** Ends the loop and waits for the thread, which has nothing left to do. */
    override fun close() {
        done.complete()
        workers.join()
    }
}
