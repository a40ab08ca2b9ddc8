package dev.minibatch.cli;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** A sample type whose generated provider's manifest the describe tests read. */
@DataProvider(batchSize = 32)
public record CliDigit(
    @Provides(shape = {28, 28}) float[][] image,
    @Provides(name = "softmax_label", label = true) int label) {}
