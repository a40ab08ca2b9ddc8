package dev.minibatch.benchmarks.processor;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** 64 frames of 64 features and a label: the fixed-length half of {@link SequenceCollateBenchmark}. */
@DataProvider
public record FixedFrames(@Provides(shape = {64, 64}, layout = "NTC") float[][] frames,
    @Provides(label = true) int label) {}
