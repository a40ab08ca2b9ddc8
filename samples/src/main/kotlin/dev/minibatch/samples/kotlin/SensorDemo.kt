package dev.minibatch.samples.kotlin

import dev.minibatch.LastBatch

/** What one epoch looked like, for tests and for printing. */
data class EpochSummary(val batches: Int, val rows: List<Int>, val pads: List<Int>, val firstReadings: List<Float>)

/**
 * Kotlin code using the generated API: a trailing lambda configures the provider, batches are read
 * with property syntax (`batch.reading`), and `use` closes the provider.
 */
fun summarizeSensors(count: Int = 10): EpochSummary {
    val sensors = (0 until count).map { i ->
        Sensor(reading = floatArrayOf(i.toFloat(), i + 0.5f, -i.toFloat()), fault = i % 2)
    }
    return SensorProvider.create { it.samples(sensors).lastBatch(LastBatch.PAD_WRAP) }.use { provider ->
        val rows = mutableListOf<Int>()
        val pads = mutableListOf<Int>()
        val firsts = mutableListOf<Float>()
        for (batch in provider) {
            rows += batch.rows()
            pads += batch.pad()
            firsts += batch.reading.getFloat(0L, 0L)
            check(batch.fault.length() == batch.rows().toLong())
        }
        EpochSummary(rows.size, rows, pads, firsts)
    }
}

/** Prints one epoch's summary. */
fun main() {
    println(summarizeSensors())
}
