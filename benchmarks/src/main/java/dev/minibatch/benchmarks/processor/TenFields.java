package dev.minibatch.benchmarks.processor;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** A sample of ten small fields: scalars and short vectors, as tabular data looks. */
@DataProvider
public record TenFields(
    @Provides float a,
    @Provides float b,
    @Provides float c,
    @Provides float d,
    @Provides(shape = {4}) float[] e,
    @Provides(shape = {4}) float[] f,
    @Provides(shape = {8}) float[] g,
    @Provides(shape = {2, 2}) float[][] h,
    @Provides long id,
    @Provides(label = true) int label) {}
