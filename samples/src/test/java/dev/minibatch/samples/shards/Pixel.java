package dev.minibatch.samples.shards;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** A sample of three members of two roles and three dtypes, for {@link GeneratedShardsTest}. */
@DataProvider(batchSize = 16)
public record Pixel(
    @Provides(shape = {2, 3}) float[][] image,
    @Provides(name = "weight") double weight,
    @Provides(label = true) int label) {}
