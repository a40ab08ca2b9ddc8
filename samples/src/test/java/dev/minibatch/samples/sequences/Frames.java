package dev.minibatch.samples.sequences;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Frames of 2 features as an INDArray of any length, at most 4 (longer ones are an error). */
@DataProvider
record Frames(
    @Provides(shape = {VARIABLE, 2}, maxLength = 4, stepPadding = 9) INDArray frames,
    @Provides(label = true) int label) {}
