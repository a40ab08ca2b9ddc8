package dev.minibatch.kotlin

import dev.minibatch.DType
import dev.minibatch.runtime.contract.EngineThreads
import dev.minibatch.runtime.pipeline.StageFailedException
import dev.minibatch.runtime.reader.FeedingProvider
import dev.minibatch.runtime.reader.Reader
import dev.minibatch.runtime.reader.Readers.Tuple
import dev.minibatch.shape.Shape
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.flow.asFlow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.flowOn
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/** [asReader] on flows and sequences, and [flowReader]: samples, passes, failures, closing. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlowReaderTest {
    @Test
    fun aFlowOf0To99FeedsBatchesOfTenInOrderEveryEpoch() {
        // docs/kotlin.md, "Flows and sequences as sources"
        val samples: Reader<Tuple> = (0 until 100).asFlow().asReader().map { Tuple.of(it) }
        FeedingProvider.builder(samples).data("x", 0, Shape.scalar(), DType.INT32).batchSize(10).build().use { provider ->
            for (epoch in 0 until 2) {   // a cold flow: each epoch collects it again, the same samples
                val batches = provider.map { batch -> batch.get("x").toIntVector().toList() }
                assertEquals((0 until 100).chunked(10), batches, "epoch $epoch")
            }
        }
    }

    @Test
    fun anExceptionAtElement37EndsThePassNamingTheSampleWithTheFlowsExceptionAsCause() {
        val before = EngineThreads.live()
        val failing = flow {
            for (i in 0 until 100) {
                check(i != 37) { "element 37 is broken" }
                emit(i)
            }
        }
        val seen = mutableListOf<Int>()
        val e = assertThrows(StageFailedException::class.java) {
            failing.asReader().iterator().use { pass -> pass.forEach { seen.add(it) } }
        }
        // The failure reaches the consumer at its next call, before samples still queued (the
        // runtime's stages all do so): what it saw is a prefix of 0..36.
        assertTrue(seen.size <= 37 && seen == (0 until seen.size).toList(), "seen $seen")
        assertEquals("flow", e.stage())
        assertEquals(37L, e.sampleIndex())
        val cause = e.cause
        assertInstanceOf(IllegalStateException::class.java, cause)
        assertEquals("element 37 is broken", cause!!.message)
        assertTrue(EngineThreads.awaitOnly(before, 0).isEmpty(), "the failed pass left ${EngineThreads.live() - before}")
    }

    @Test
    fun closingAPassWhoseFlowIsSuspendedRunsItsFinallyBeforeCloseReturns() {
        val before = EngineThreads.live()
        val finallyRan = AtomicBoolean()
        // Emits 3 samples, which the queue of 3 takes without blocking the flow, then waits
        // (suspended, not in emit) until cancelled: only cancelling the collection ends it.
        val endless = flow {
            try {
                for (i in 0 until 3) emit(i)
                awaitCancellation()
            } finally {
                finallyRan.set(true)
            }
        }
        val pass = endless.asReader(capacity = 3).iterator()
        assertEquals(listOf(0, 1, 2), (0 until 3).map { pass.next() })
        pass.close()
        assertTrue(finallyRan.get(), "close() returned before the flow's finally ran")
        assertTrue(EngineThreads.awaitOnly(before, 0).isEmpty(), "close() left ${EngineThreads.live() - before}")
    }

    @Test
    fun closingAPassCancelsAnUpstreamOnAnotherDispatcherAndWaitsForIt() {
        val finallyRan = AtomicBoolean()
        val upstream = flow {
            try {
                for (i in 0 until 3) emit(i)
                awaitCancellation()
            } finally {
                finallyRan.set(true)
            }
        }.flowOn(Dispatchers.Default)
        val pass = upstream.asReader(capacity = 3).iterator()
        assertEquals(listOf(0, 1, 2), (0 until 3).map { pass.next() })
        pass.close()
        assertTrue(finallyRan.get(), "close() returned before the upstream's finally ran")
    }

    @Test
    fun aSequenceGivesTheSameSamplesEveryPass() {
        val reader = generateSequence(1) { it * 2 }.take(6).asReader()
        assertEquals(listOf(1, 2, 4, 8, 16, 32), reader.toList())
        assertEquals(listOf(1, 2, 4, 8, 16, 32), reader.iterator(3).asSequence().toList())
    }

    @Test
    fun aFlowReaderCollectsTheFlowOfEachPassNumber() {
        val reader = flowReader { pass -> flowOf(10 * pass, 10 * pass + 1) }
        assertEquals(listOf(0, 1), reader.toList())            // iterator(): pass 0
        assertEquals(listOf(10, 11), reader.toList())          // pass 1
        assertEquals(listOf(50, 51), reader.iterator(5).asSequence().toList())
        assertEquals(listOf(50, 51), reader.iterator(5).asSequence().toList())   // the same pass again
        assertEquals(listOf(20, 21), reader.toList())          // iterator() counts only its own passes
    }

    @Test
    fun usePassClosesThePassWhenTheBlockStopsEarly() {
        val before = EngineThreads.live()
        val finallyRan = AtomicBoolean()
        val reader = flow {
            try {
                for (i in 0 until 1000) emit(i)
            } finally {
                finallyRan.set(true)
            }
        }.asReader(capacity = 4)
        assertEquals(listOf(0, 1, 2), reader.usePass { it.take(3).toList() })
        assertTrue(finallyRan.get(), "usePass did not close the pass")
        assertTrue(EngineThreads.awaitOnly(before, 0).isEmpty(), "usePass left ${EngineThreads.live() - before}")
    }

    @Test
    fun aNegativeCapacityIsRefusedWhenTheReaderIsMade() {
        val e = assertThrows(IllegalArgumentException::class.java) { flowOf(1).asReader(-1) }
        assertEquals("capacity must be >= 0 (0 = unbounded), got -1", e.message)
    }

    @Test
    fun samplesEmittedBeforeTheFlowSuspendsAreHandedOverAtOnce() {
        // 40 fast samples go over in groups (a queue of 64 hands over up to 32 at a time once the
        // samples prove cheap); then the flow suspends until the consumer has read all 40. Without the
        // hand-over on suspension the last few would wait with the flow, and the consumer for them: the
        // wait is bounded, so that failure shows as a false flag instead of a hung build.
        val n = 40
        val consumerHasAll = kotlinx.coroutines.CompletableDeferred<Unit>()
        val readBeforeTheWaitEnded = AtomicBoolean()
        val pausing = flow {
            for (i in 0 until n) emit(i)
            readBeforeTheWaitEnded.set(kotlinx.coroutines.withTimeoutOrNull(20_000) { consumerHasAll.await() } != null)
            emit(n)
        }
        pausing.asReader().iterator().use { pass ->
            assertEquals((0 until n).toList(), List(n) { pass.next() })
            consumerHasAll.complete(Unit)
            assertEquals(n, pass.next())
            assertTrue(!pass.hasNext())
        }
        assertTrue(readBeforeTheWaitEnded.get(), "the consumer read the $n samples only after the flow's wait")
    }
}
