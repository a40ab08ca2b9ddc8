package dev.minibatch.samples.spark;

import dev.minibatch.DType;
import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.SampleSchema.Encoding;

/**
 * A photo as its encoded bytes (docs/spark.md, "Encoded images"): with Spark on the class path the
 * processor also writes {@code SparkPhotoSparkRows}, whose {@code jpeg} column is binary.
 *
 * @param jpeg the encoded image, decoded to FLOAT32 (3, 224, 224)
 * @param label the class
 */
@DataProvider
public record SparkPhoto(
    @Provides(shape = {3, 224, 224}, dtype = DType.FLOAT32, encoding = Encoding.IMAGE_RGB) byte[] jpeg,
    @Provides(label = true) int label) {}
