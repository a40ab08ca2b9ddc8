package dev.minibatch.kotlin.internal

import java.util.concurrent.LinkedBlockingQueue
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Job

/**
 * A dispatcher whose coroutines run on one runtime thread: the thread that calls [runUntil]. The
 * runtime starts and stops its threads itself (named `minibatch-<stage>-<n>`, stopped by an
 * interrupt and a bounded join); this lets coroutines run on such a thread.
 *
 * Not `runBlocking`: when its thread is interrupted, `runBlocking` cancels its coroutine and returns
 * at once, without running the cancelled coroutine's `finally` blocks, which were queued on the loop
 * it abandons. Here an interrupt only asks for cancellation ([runUntil]'s `onInterrupt`), and the
 * loop goes on until the job has completed, so a closed pass has run its flow's `finally` blocks
 * and `onCompletion` before its thread ends.
 */
internal class TaskLoop : CoroutineDispatcher() {
    private val tasks = LinkedBlockingQueue<Runnable>()

    override fun dispatch(context: CoroutineContext, block: Runnable) {
        tasks.add(block)
    }

    /**
     * Runs the dispatched tasks on the calling thread until [job] has completed. Before the loop waits
     * for a task (every coroutine on it is suspended, waiting for something outside), it calls
     * [onIdle]. An interrupt of the waiting thread (the runtime stopping it) calls [onInterrupt] and
     * the loop goes on.
     */
    fun runUntil(job: Job, onIdle: () -> Unit, onInterrupt: () -> Unit) {
        // Wakes the loop if the job completes on another thread (its last child ended elsewhere).
        job.invokeOnCompletion { tasks.add(WAKE) }
        while (!job.isCompleted) {
            var task = tasks.poll()
            if (task == null) {
                onIdle()
                task = try {
                    tasks.take()
                } catch (e: InterruptedException) {
                    onInterrupt()
                    continue
                }
            }
            task.run()
        }
    }

    private companion object {
        val WAKE = Runnable {}
    }
}
