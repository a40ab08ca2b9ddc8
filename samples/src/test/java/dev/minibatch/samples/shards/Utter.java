package dev.minibatch.samples.shards;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.TooLong;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A sample of variable-length members of every kind a shard column takes, for {@link
 * GeneratedShardsTest}: a nested primitive array with its variable axis first, a label that shares
 * its length, and an INDArray with its variable axis last, bounded and truncated.
 */
@DataProvider(batchSize = 16)
public record Utter(
    @Provides(shape = {VARIABLE, 2}, stepPadding = -1) float[][] frames,
    @Provides(shape = {VARIABLE}, label = true, sameLengthAs = "frames", stepPadding = 7) int[] phones,
    @Provides(shape = {3, VARIABLE}, maxLength = 6, tooLong = TooLong.TRUNCATE_START) INDArray channels,
    @Provides long id) {}
