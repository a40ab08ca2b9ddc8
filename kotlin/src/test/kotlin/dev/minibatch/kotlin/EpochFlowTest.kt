package dev.minibatch.kotlin

import dev.minibatch.DType
import dev.minibatch.runtime.NamedBatch
import dev.minibatch.runtime.array.ArrayDataProvider
import dev.minibatch.runtime.contract.EngineThreads
import dev.minibatch.runtime.pipeline.PipelineIterator
import dev.minibatch.runtime.reader.Reader
import dev.minibatch.runtime.reader.FeedingProvider
import dev.minibatch.runtime.reader.Readers.Tuple
import dev.minibatch.shape.Shape
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.flow.asFlow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.onCompletion
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/** [epochFlow] and [useEpoch]: batches, suspension instead of blocking, cancellation, threads. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpochFlowTest {
    private fun NamedBatch.xs(): List<Int> = get("x").toIntVector().toList()

    @Test
    fun cancellingTheCollectorAfterThreeBatchesClosesTheSourceAndLeavesNoThread() = runBlocking {
        val before = EngineThreads.live()
        val sourceClosed = AtomicBoolean()
        var completion: Throwable? = null
        // More samples than the pass's queue holds, so the flow is still emitting when cancelled.
        val source = (0 until 10_000).asFlow()
            .onCompletion { cause -> completion = cause; sourceClosed.set(true) }
            .asReader()
        FeedingProvider.builder(source.map { Tuple.of(it) })
            .data("x", 0, Shape.scalar(), DType.INT32).batchSize(10).build().use { provider ->
                val seen = mutableListOf<List<Int>>()
                val threeBatches = CompletableDeferred<Unit>()
                val training = launch {
                    provider.epochFlow().collect { batch ->
                        seen.add(batch.xs())
                        if (seen.size == 3) threeBatches.complete(Unit)
                    }
                }
                threeBatches.await()
                training.cancelAndJoin()
                assertEquals((0 until 30).chunked(10), seen.take(3))
                assertTrue(sourceClosed.get(), "the collection was cancelled but the source flow did not complete")
                assertNotNull(completion, "the source flow completed normally, not stopped")
                val left = EngineThreads.live() - before
                assertTrue(left.isEmpty(), "threads left after the cancelled collection: ${EngineThreads.describe(left)}")
            }
    }

    @Test
    fun aProviderWithTwoReaderThreadsGivesTheSameBatchesAsAFlowAsThroughItsIterator() = runBlocking {
        val before = EngineThreads.live()
        fun build(): ArrayDataProvider = ArrayDataProvider.builder()
            .data("x", IntArray(100) { it }).batchSize(10).shuffle(true).seed(7).readers(2).build()
        val expected = build().use { provider -> provider.map { it.xs() } }
        // docs/kotlin.md, "Epochs as Flows"
        val batches: List<List<Int>> = build().use { provider ->
            provider.epochFlow()
                .map { batch -> batch.get("x").toIntVector().toList() }   // read each batch before the next
                .toList()
        }
        assertEquals(expected, batches)
        assertEquals((0 until 100).toList(), batches.flatten().sorted())
        assertTrue(expected != (0 until 100).chunked(10), "the seed gave the unshuffled order: the test shows nothing")
        assertTrue(EngineThreads.awaitOnly(before, 0).isEmpty(), "left ${EngineThreads.live() - before}")
    }

    /**
     * The source stops at sample 10, inside the provider's `next()` for the second batch, until the
     * collector's own thread (runBlocking's only one) lets it go on. Were `next()` run on that
     * thread, it would block it and the signal would never come (the test would time out).
     */
    @Test
    fun theCollectorsThreadIsFreeWhileTheProviderWaits() = runBlocking {
        val waiting = CompletableDeferred<Unit>()
        val go = CountDownLatch(1)
        val gated = Reader<Tuple> {
            PipelineIterator.of(iterator<Tuple> {
                for (i in 0 until 20) {
                    if (i == 10) {
                        waiting.complete(Unit)
                        go.await()
                    }
                    yield(Tuple.of(i))
                }
            })
        }
        FeedingProvider.builder(gated).data("x", 0, Shape.scalar(), DType.INT32).batchSize(10).build().use { provider ->
            val batches = async { provider.epochFlow().map { it.xs() }.toList() }
            waiting.await()
            go.countDown()
            assertEquals((0 until 20).chunked(10), batches.await())
        }
    }

    @Test
    fun useEpochClosesTheEpochWhenTheBlockStopsEarly() {
        val before = EngineThreads.live()
        ArrayDataProvider.builder().data("x", IntArray(100) { it }).batchSize(10).readers(2).build().use { provider ->
            val first = provider.useEpoch { batches -> batches.first().xs() }
            assertEquals((0 until 10).toList(), first)
            // The epoch's reader threads are stopped by the close, not left to the garbage collector.
            val left = EngineThreads.live() - before
            assertTrue(left.isEmpty(), "useEpoch left ${EngineThreads.describe(left)}")
        }
    }
}
