package dev.minibatch.samples.kotlin

import dev.minibatch.LastBatch
import dev.minibatch.runtime.reader.Reader
import dev.minibatch.runtime.reader.Readers

/** What one epoch looked like, for tests and for printing. */
data class EpochSummary(val batches: Int, val rows: List<Int>, val pads: List<Int>, val firstReadings: List<Float>)

/**
 * Kotlin code using the generated API: the generated DSL configures the provider, batches are read
 * with property syntax (`batch.reading`), and `use` closes the provider.
 */
fun summarizeSensors(count: Int = 10): EpochSummary {
    val sensors = (0 until count).map { i ->
        Sensor(reading = floatArrayOf(i.toFloat(), i + 0.5f, -i.toFloat()), fault = i % 2)
    }
    return sensorProvider {
        samples(sensors)
        lastBatch = LastBatch.PAD_WRAP
    }.use { provider ->
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

/**
 * A reader pipeline feeding the generated provider from Kotlin: a generator emits sensors, `map`
 * doubles their readings, `xmap` on two workers flags faults in parallel (keeping the order),
 * `shuffle` mixes them with a seed, and the provider streams the result in batches. Returns each
 * batch's first readings.
 */
fun pipelineReadings(count: Int = 20, seed: Long = 7): List<List<Float>> {
    val generated: Reader<Sensor> = Readers.generate { out ->
        for (i in 0 until count) out.emit(Sensor(floatArrayOf(i.toFloat(), 0f, 0f), fault = 0))
    }
    val pipeline = generated
        .map { s -> Sensor(s.reading.map { it * 2 }.toFloatArray(), s.fault) }
        .xmap(2, 4, true) { s -> Sensor(s.reading, fault = if (s.reading[0] >= 20f) 1 else 0) }
        .shuffle(8, seed)
    return sensorProvider {
        streaming(pipeline)
        batchSize = 5
    }.use { provider ->
        provider.map { batch -> (0 until batch.rows()).map { row -> batch.reading.getFloat(row.toLong(), 0L) } }
    }
}

/** Prints, with labels, one epoch of each: the provider over a list and the reader pipeline. */
fun main() {
    val s = summarizeSensors()
    println("10 sensors, batches of 4, last batch PAD_WRAP: ${s.batches} batches")
    println("  rows per batch:          ${s.rows}")
    println("  padded rows per batch:   ${s.pads}")
    println("  first reading per batch: ${s.firstReadings}")
    println("20 generated sensors -> map (x2) -> xmap (fault flag, 2 workers) -> shuffle(8, seed 7), batches of 5:")
    pipelineReadings().forEachIndexed { i, readings -> println("  batch $i, first readings: $readings") }
}
