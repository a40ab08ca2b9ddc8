package dev.minibatch.samples.ksp

import dev.minibatch.DataProvider
import dev.minibatch.LastBatch
import dev.minibatch.Provides

/**
 * A Kotlin sample: KSP2 generates `PointProvider` and `PointBatch` for it, as kapt would, and the
 * DSL `pointProvider { … }` (`PointProviderDsl.kt`).
 */
@DataProvider(batchSize = 2)
class Point(
    @field:Provides(shape = [2]) val xy: FloatArray,
    @Provides(label = true) val cls: Int,
)

/** One line per batch of five points in batches of two, the last padded by wrapping around. */
fun pointBatches(): List<String> {
    val points = (0 until 5).map { i -> Point(floatArrayOf(i.toFloat(), 10f * i), i % 3) }
    return pointProvider {
        samples(points)
        lastBatch = LastBatch.PAD_WRAP
    }.use { provider ->
        provider.map { b -> "${b.rows()} rows ${b.pad()} pad xy=${b.xy.toFloatMatrix().map { it.toList() }} cls=${b.cls.toIntVector().toList()}" }
    }
}

/** The Java sample's batches: the alarm labels of three readings in batches of two. */
fun readingAlarms(): List<List<Int>> {
    val readings = listOf(Reading(floatArrayOf(1f, 2f, 3f), 0), Reading(floatArrayOf(4f, 5f, 6f), 1), Reading(floatArrayOf(7f, 8f, 9f), 1))
    return ReadingProvider.create { it.samples(readings) }.use { provider -> provider.map { b -> b.alarm.toIntVector().toList() } }
}

/** A line of token ids of any length: KSP2 also writes `TokenLinePackedBatch` and `tokenLinePacked { … }`. */
@DataProvider(batchSize = 2)
class TokenLine(@field:Provides(shape = [Provides.VARIABLE]) val ids: IntArray)

/** Lines `1 2 3`, `4`, `5 6` packed into rows of 3 ids, two rows a batch: each batch's ids and segment ids. */
fun packedTokenLines(): List<Pair<List<List<Int>>, List<List<Int>>>> {
    val lines = listOf(intArrayOf(1, 2, 3), intArrayOf(4), intArrayOf(5, 6)).map(::TokenLine)
    return tokenLinePacked(3) { samples(lines) }.use { batches ->
        batches.map { b -> b.ids.toIntMatrix().map { it.toList() } to b.idsSegmentIds.toIntMatrix().map { it.toList() } }
    }
}

fun main() {
    pointBatches().forEach(::println)
    println(readingAlarms())
    println(packedTokenLines())
}
