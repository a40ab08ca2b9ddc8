package dev.minibatch.samples.kotlin

import dev.minibatch.LastBatch
import dev.minibatch.runtime.Buckets
import dev.minibatch.runtime.ProviderBuilder
import dev.minibatch.runtime.ProviderBuilder.BadSamples
import dev.minibatch.runtime.Settings
import dev.minibatch.runtime.contract.EngineThreads
import dev.minibatch.runtime.pipeline.StageFailedException
import dev.minibatch.text.TokenBudget
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * The DSL kapt generates for the Kotlin samples (`SensorProviderDsl.kt`, `UtteranceProviderDsl.kt`),
 * used as Kotlin code uses it. Ten sensors: sensor `i` reads `(i, i + 0.5, -i)` with fault `i % 2`,
 * so a batch's first readings name its samples and every expected batch below is counted by hand.
 * Each setting is checked where it changes the batches, so a setting the DSL failed to pass to the
 * builder fails its test.
 */
class ProviderDslTest {
    private val sensors = tenSensors()

    /** Each batch's first readings: the ids of its rows' samples, padding rows included. */
    private fun SensorProvider.ids(): List<List<Int>> = use { provider ->
        provider.map { batch -> (0 until batch.rows()).map { row -> batch.reading.getFloat(row.toLong(), 0L).toInt() } }
    }

    @Test
    fun aKotlinAppOnTheDslAndAFlowEpoch() {
        val before = EngineThreads.live()
        // 10 sensors in batches of 4 (declared), PAD_WRAP: the last batch is 8, 9 and then 0, 1 from the start.
        assertEquals(
            listOf(
                SensorRows(listOf(0f, 1f, 2f, 3f), listOf(0, 1, 0, 1), pad = 0),
                SensorRows(listOf(4f, 5f, 6f, 7f), listOf(0, 1, 0, 1), pad = 0),
                SensorRows(listOf(8f, 9f, 0f, 1f), listOf(0, 1, 0, 1), pad = 2),
            ),
            runBlocking { sensorEpoch(sensors) },
        )
        assertEquals(setOf<Thread>(), EngineThreads.awaitOnly(before, 10), "the epoch's flow thread ended")
    }

    @Test
    fun theJavaBuilderFromKotlin() {
        // The same provider without the DSL: the Java builder in a trailing lambda.
        val ids = SensorProvider.create { it.samples(sensors).lastBatch(LastBatch.PAD_WRAP) }.ids()
        assertEquals(listOf(listOf(0, 1, 2, 3), listOf(4, 5, 6, 7), listOf(8, 9, 0, 1)), ids)
    }

    @Test
    fun aSharedSettingsValueAppliesAndTheSingleSettingsOverrideIt() {
        val shared = Settings.builder().batchSize(3).lastBatch(LastBatch.DISCARD).build()
        assertEquals(listOf(listOf(0, 1, 2), listOf(3, 4, 5), listOf(6, 7, 8)), sensorProvider {
            samples(sensors)
            settings = shared
        }.ids())
        // batchSize 5 over the shared 3: two batches of 5, nothing discarded.
        assertEquals(listOf(listOf(0, 1, 2, 3, 4), listOf(5, 6, 7, 8, 9)), sensorProvider {
            samples(sensors)
            settings = shared
            batchSize = 5
        }.ids())
    }

    @Test
    fun everyOneValueSetterOfTheJavaBuilderIsAPropertyOfTheDsl() {
        // The DSL's settings are generated from one list; a setter added to ProviderBuilder without it fails here.
        val setters = ProviderBuilder::class.java.methods
            .filter { it.declaringClass == ProviderBuilder::class.java && it.parameterCount == 1 && it.name != "apply" }
            .map { it.name }.toSortedSet()
        val properties = SensorProviderDsl::class.java.methods
            .filter { it.name.startsWith("set") && it.parameterCount == 1 }
            .map { it.name.removePrefix("set").replaceFirstChar(Char::lowercaseChar) }.toSortedSet()
        assertEquals(setOf<String>(), setters - properties, "ProviderBuilder setters missing from the DSL")
    }

    @Test
    fun batchSizeAndLastBatch() {
        assertEquals(listOf(listOf(0, 1, 2, 3), listOf(4, 5, 6, 7), listOf(8, 9)), sensorProvider { samples(sensors) }.ids())
        val ids = sensorProvider {
            samples(sensors)
            batchSize = 3
            lastBatch = LastBatch.DISCARD
        }.ids()
        assertEquals(listOf(listOf(0, 1, 2), listOf(3, 4, 5), listOf(6, 7, 8)), ids)
    }

    @Test
    fun paddingConstants() {
        // PAD_CONSTANT: rows 8, 9, then two padded rows holding the constants.
        fun lastBatch(provider: SensorProvider): Pair<List<Float>, List<Int>> = provider.use { p ->
            p.map { b -> (0 until b.rows()).map { b.reading.getFloat(it.toLong(), 0L) } to b.fault.toIntVector().toList() }.last()
        }
        val byRole = lastBatch(sensorProvider {
            samples(sensors)
            lastBatch = LastBatch.PAD_CONSTANT
            dataPadding = 7.0
            labelPadding = -1.0
        })
        assertEquals(listOf(8f, 9f, 7f, 7f) to listOf(0, 1, -1, -1), byRole)
        val byMember = lastBatch(sensorProvider {
            samples(sensors)
            lastBatch = LastBatch.PAD_CONSTANT
            dataPadding = 7.0
            padding {
                reading = 3.0   // a member's own constant wins over dataPadding
                fault = 5.0
            }
        })
        assertEquals(listOf(8f, 9f, 3f, 3f) to listOf(0, 1, 5, 5), byMember)
    }

    @Test
    fun shuffleAndSeed() {
        sensorProvider { samples(sensors); seed = 11 }.use { assertEquals(11L, it.seed()) }
        val shuffled = sensorProvider {
            samples(sensors)
            shuffle = true
            seed = 11
        }.ids()
        // The same order as the Java builder's with the same settings: a pure function of (seed, epoch).
        val java = SensorProvider.builder().samples(sensors).shuffle(true).seed(11).build().ids()
        assertEquals(java, shuffled)
        assertEquals((0 until 10).toList(), shuffled.flatten().sorted())
        assertNotEquals((0 until 10).toList(), shuffled.flatten(), "shuffled")
    }

    @Test
    fun shards() {
        // Part 1 of 2 reads the second block of samples, 5 to 9.
        assertEquals(listOf(listOf(5, 6, 7, 8), listOf(9)), sensorProvider { samples(sensors); shard(2, 1) }.ids())
        // Elastic: the parts take turns at the global batches [0..3], [4..7], [8, 9]; part 1 gets the second.
        val elastic = sensorProvider {
            samples(sensors)
            shard(2, 1)
            elasticShards = true
        }.ids()
        assertEquals(listOf(listOf(4, 5, 6, 7)), elastic)
        // Parts are the blocks [floor(p * 10 / 3), floor((p + 1) * 10 / 3)): part 2 holds 6 to 9. With evenShards
        // every part takes ceil(10 / 3) = 4 samples from p * 4 on, wrapping: part 2 is 8, 9, 0, 1.
        assertEquals(listOf(listOf(6, 7, 8, 9)), sensorProvider { samples(sensors); shard(3, 2) }.ids())
        val even = sensorProvider {
            samples(sensors)
            shard(3, 2)
            evenShards = true
        }.ids()
        assertEquals(listOf(listOf(8, 9, 0, 1)), even)
    }

    @Test
    fun badSamples() {
        // Sensor 5 has two readings instead of three: it cannot be collated.
        val withBad = sensors.mapIndexed { i, s -> if (i == 5) Sensor(floatArrayOf(5f, 5f), fault = 1) else s }
        assertThrows(RuntimeException::class.java) { sensorProvider { samples(withBad) }.ids() }
        val skipped = sensorProvider {
            samples(withBad)
            badSamples = BadSamples.skip(1)
        }.ids()
        assertEquals(listOf(listOf(0, 1, 2, 3), listOf(4, 6, 7), listOf(8, 9)), skipped)
    }

    @Test
    fun readers() {
        // Which threads collate shows in the stage a bad sample fails: reader threads are the
        // "sample-reader" stage (VariableLengthTest); without them the consumer's thread collates.
        val withBad = sensors.mapIndexed { i, s -> if (i == 5) Sensor(floatArrayOf(5f, 5f), fault = 1) else s }
        fun failure(provider: SensorProvider): Throwable = assertThrows(RuntimeException::class.java) { provider.ids() }
        val onReaders = failure(sensorProvider { samples(withBad); readers = 2 })
        assertEquals("sample-reader", (onReaders as StageFailedException).stage())
        val onConsumer = failure(sensorProvider { samples(withBad) })
        assertFalse(onConsumer is StageFailedException, onConsumer.toString())
    }

    @Test
    fun sources() {
        sensorProvider { samples(sensors) }.use { assertEquals(10, it.numSamples()) }
        // streaming(...) replaces the earlier samples(...): a streaming source does not know its size.
        val streaming = sensorProvider {
            samples(sensors)
            streaming(sensors)
        }
        streaming.use { assertEquals(-1, it.numSamples()) }
        val none = assertThrows(IllegalStateException::class.java) { sensorProvider { batchSize = 2 } }
        assertTrue(none.message!!.contains("no samples"), none.message)
    }

    @Test
    fun sequenceSettings() {
        // Utterances of 1, 3 and 2 frames in batches of 2 (declared): [1, 3] padded to 3 steps, then [2].
        val utterances = listOf(1, 3, 2).map { n -> Utterance(Array(n) { floatArrayOf(0f, 0f) }, IntArray(n)) }
        fun steps(provider: UtteranceProvider): List<Long> = provider.use { p -> p.map { it.frames.shape()[1] } }
        assertEquals(listOf(3L, 2L), steps(utteranceProvider { samples(utterances) }))
        // fixedLength: every batch padded to the longest sample of the list.
        assertEquals(listOf(3L, 3L), steps(utteranceProvider { samples(utterances); fixedLength = true }))
        // Buckets given as a value: bound 2 holds utterances 0 and 2, bound 4 utterance 1.
        val keys = utteranceProvider {
            samples(utterances)
            buckets(Buckets.of(2, 4))
        }.use { p -> p.map { it.bucketKey() } }
        assertEquals(listOf(2, 4), keys)
    }

    @Test
    fun packedAndTokenBudgetBlocks() {
        // Phones 0 | 10 11 12 | 20 21: the utterances' variable INT32 member, the one packing reads.
        val utterances = listOf(1, 3, 2).mapIndexed { i, n ->
            Utterance(Array(n) { floatArrayOf(0f, 0f) }, IntArray(n) { t -> 10 * i + t })
        }
        // Concatenated into rows of 4, two rows a batch (the declared batch size): one batch.
        val packed = utterancePacked(4) { samples(utterances) }.use { batches ->
            batches.map { b ->
                listOf(b.phones, b.phonesSegmentIds, b.phonesPositionIds, b.phonesLossMask)
                    .map { a -> a.toIntMatrix().map { it.toList() } } + listOf(listOf(b.phonesBoundaries.toIntVector().toList()))
            }
        }
        assertEquals(
            listOf(
                listOf(
                    listOf(listOf(0, 10, 11, 12), listOf(20, 21, 0, 0)),   // ids, padding id 0
                    listOf(listOf(1, 2, 2, 2), listOf(1, 1, 0, 0)),        // segment ids
                    listOf(listOf(0, 0, 1, 2), listOf(0, 1, 0, 0)),        // position ids
                    listOf(listOf(1, 1, 1, 1), listOf(1, 1, 0, 0)),        // loss mask
                    listOf(listOf(0, 1, 4, 6, 8)),                         // cu_seqlens, row 1's padding a segment
                ),
            ),
            packed,
        )
        // A budget of 6 positions over one window of 3, in length order: [0 | 20 21] (2 rows of 2), [10 11 12].
        val budget = utteranceTokenBudget(TokenBudget.builder(6).window(3).build()) { samples(utterances) }.use { batches ->
            batches.toList().map { b -> Triple(b.documents().toList(), b.width(), b.ids().toList()) }
        }
        assertEquals(listOf(Triple(listOf(0L, 2L), 2, listOf(0, 0, 20, 21)), Triple(listOf(1L), 3, listOf(10, 11, 12))), budget)
    }

    @Test
    fun imageSettingsOfAnEncodedImageMember() {
        // Five 12 x 10 PNGs: picture i is a gradient whose red starts at 20 i.
        val pictures = (0 until 5).map { i ->
            val img = java.awt.image.BufferedImage(12, 10, java.awt.image.BufferedImage.TYPE_INT_RGB)
            for (y in 0 until 10) for (x in 0 until 12) img.setRGB(x, y, (20 * i + 9 * x) shl 16 or (20 * y shl 8) or 77)
            val out = java.io.ByteArrayOutputStream()
            javax.imageio.ImageIO.write(img, "png", out)
            Picture(out.toByteArray(), i)
        }
        fun values(provider: PictureProvider): List<List<Float>> = provider.use { p ->
            p.map { b -> b.png.dup().reshape(b.png.length()).toFloatVector().toList() }
        }
        val fromDsl = values(pictureProvider {
            samples(pictures)
            seed = 3
            augment("png") { randCrop(true).randMirror(true) }
            normalize("png") { meanRgb(100f, 90f, 80f).stdRgb(50f, 40f, 30f) }
            reducedDecode = false
        })
        val fromJava = values(PictureProvider.builder().samples(pictures).seed(3)
            .augment(PictureBatch.PNG) { it.randCrop(true).randMirror(true) }
            .normalize(PictureBatch.PNG) { it.meanRgb(100f, 90f, 80f).stdRgb(50f, 40f, 30f) }
            .reducedDecode(false).build())
        assertEquals(fromJava, fromDsl)
        // The block's settings reach the builder: without them the pixels are the plain crops.
        assertNotEquals(values(pictureProvider { samples(pictures); seed = 3 }), fromDsl)
        val wrong = assertThrows(IllegalArgumentException::class.java) {
            pictureProvider { samples(pictures); augment("label") { randMirror(true) } }
        }
        assertTrue(wrong.message!!.contains("'label' is not one"), wrong.message)
    }
}
