package dev.minibatch.samples.kotlin

import dev.minibatch.DataProvider
import dev.minibatch.Provides
import dev.minibatch.Provides.VARIABLE

/**
 * A variable-length sample in Kotlin: an utterance of any number of 2-feature frames, one phone id
 * per frame (sharing the frames' length), processed by kapt like any other sample.
 */
@DataProvider(batchSize = 2)
class Utterance(
    @field:Provides(shape = [VARIABLE, 2]) val frames: Array<FloatArray>,
    @field:Provides(shape = [VARIABLE], label = true, sameLengthAs = "frames", stepPadding = -1.0) val phones: IntArray,
)

/** Per batch of utterances of 1, 3 and 2 frames, in buckets of 2 and 4: the bucket key, the lengths and the phones. */
fun utteranceBatches(): List<Triple<Int, List<Int>, List<List<Int>>>> {
    val utterances = listOf(1, 3, 2).mapIndexed { i, n ->
        Utterance(Array(n) { t -> floatArrayOf(i.toFloat(), t.toFloat()) }, IntArray(n) { t -> 10 * i + t })
    }
    return utteranceProvider {
        samples(utterances)
        buckets(2, 4)
    }.use { provider ->
        provider.map { batch ->
            Triple(
                batch.bucketKey(),
                batch.framesLengths.toIntVector().toList(),
                batch.phones.toIntMatrix().map { it.toList() },
            )
        }
    }
}
