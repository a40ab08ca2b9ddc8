package dev.minibatch.samples.kotlin

import dev.minibatch.DType
import dev.minibatch.DataProvider
import dev.minibatch.Provides
import dev.minibatch.SampleSchema.Encoding

/**
 * A picture as its encoded bytes (PNG or JPEG), decoded by the generated provider into FLOAT32
 * `(3, 8, 8)`; the DSL `pictureProvider { … }` gets `augment("png") { … }`, `normalize("png") { … }`
 * and `reducedDecode`.
 */
@DataProvider(batchSize = 2)
class Picture(
    @field:Provides(shape = [3, 8, 8], dtype = DType.FLOAT32, encoding = Encoding.IMAGE_RGB) val png: ByteArray,
    @field:Provides(label = true) val label: Int,
)
