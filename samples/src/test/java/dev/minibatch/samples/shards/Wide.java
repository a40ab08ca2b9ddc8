package dev.minibatch.samples.shards;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** A sample of other shapes than {@link Pixel}, so it cannot read Pixel shards. */
@DataProvider(batchSize = 16)
public record Wide(@Provides(shape = {6}) float[] image, @Provides(label = true) int label) {}
