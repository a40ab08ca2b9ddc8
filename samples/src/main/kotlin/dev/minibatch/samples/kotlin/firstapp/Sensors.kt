package dev.minibatch.samples.kotlin.firstapp

import dev.minibatch.DataProvider
import dev.minibatch.LastBatch
import dev.minibatch.Provides

@DataProvider(batchSize = 4)
class Sensor(
    @field:Provides(shape = [3]) val reading: FloatArray,
    @field:Provides(name = "is_fault", label = true) val fault: Int,
)

fun summarize(sensors: List<Sensor>) =
    sensorProvider {                                // generated with SensorProvider: SensorProviderDsl.kt
        samples(sensors)
        lastBatch = LastBatch.PAD_WRAP              // unset settings keep their defaults: batchSize 4
    }.use { provider ->
        for (batch in provider) {                   // one epoch per loop
            val x = batch.reading                   // INDArray [rows, 3], a property
            val y = batch.fault                     // INDArray [rows]
            println("${batch.rows()} rows, ${batch.pad()} padded, reading ${x.shape().toList()}, is_fault ${y.shape().toList()}")
        }
    }

fun main() {
    summarize((0 until 10).map { i -> Sensor(floatArrayOf(i.toFloat(), i + 0.5f, -i.toFloat()), fault = i % 2) })
}
