package dev.minibatch.samples.kotlin

import dev.minibatch.DataProvider
import dev.minibatch.Provides

/**
 * A Kotlin sample class processed by kapt: `val` properties become private fields with getters,
 * which the generated code reads.
 */
@DataProvider(batchSize = 4)
class Sensor(
    @field:Provides(shape = [3]) val reading: FloatArray,
    @field:Provides(name = "is_fault", label = true) val fault: Int,
)
