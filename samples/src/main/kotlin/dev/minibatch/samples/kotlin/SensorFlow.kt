package dev.minibatch.samples.kotlin

import dev.minibatch.LastBatch
import dev.minibatch.kotlin.epochFlow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking

/** What one batch held: each row's first reading and fault label, and how many rows are padding. */
data class SensorRows(val firstReadings: List<Float>, val faults: List<Int>, val pad: Int)

/** Ten sensors: sensor `i` reads `(i, i + 0.5, -i)` and has fault `i % 2`. */
fun tenSensors(): List<Sensor> =
    (0 until 10).map { i -> Sensor(floatArrayOf(i.toFloat(), i + 0.5f, -i.toFloat()), fault = i % 2) }

/**
 * A Kotlin app on the generated DSL and a `Flow` epoch: [sensorProvider] sets the provider up,
 * `epochFlow()` hands one epoch to the collecting coroutine, which suspends instead of blocking its
 * thread while the next batch is read, and `use` closes the provider. Each batch is read into plain
 * values before the next one is asked for, because the provider reuses its buffers.
 */
suspend fun sensorEpoch(sensors: List<Sensor>): List<SensorRows> =
    sensorProvider {
        samples(sensors)
        lastBatch = LastBatch.PAD_WRAP
    }.use { provider ->
        provider.epochFlow()
            .map { batch ->
                SensorRows(
                    firstReadings = (0 until batch.rows()).map { row -> batch.reading.getFloat(row.toLong(), 0L) },
                    faults = batch.fault.toIntVector().toList(),
                    pad = batch.pad(),
                )
            }
            .toList()
    }

/** Prints the batches of one epoch of [tenSensors], collected as a flow. */
fun main() = runBlocking {
    sensorEpoch(tenSensors()).forEachIndexed { i, rows ->
        println("batch $i: first readings ${rows.firstReadings}, faults ${rows.faults}, ${rows.pad} padded")
    }
}
