package dev.minibatch.samples.sequences;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.TooLong;

/**
 * Two channels of a signal of any length (the variable axis last, NCT), bounded at 3 steps, longer
 * signals keeping their last 3; stored as float32 from shorts (the converting copy).
 */
@DataProvider
record Channels(
    @Provides(shape = {2, VARIABLE}, maxLength = 3, tooLong = TooLong.TRUNCATE_START, dtype = dev.minibatch.DType.FLOAT32,
        stepPadding = 0.5) short[][] signal,
    @Provides(label = true) int kind) {}
