package dev.minibatch.benchmarks.processor;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * A sequence of 64-feature frames of any length up to 64, and a label: the variable-length half of
 * {@link SequenceCollateBenchmark}.
 */
@DataProvider
public record VarFrames(@Provides(shape = {VARIABLE, 64}, maxLength = 64) float[][] frames,
    @Provides(label = true) int label) {}
