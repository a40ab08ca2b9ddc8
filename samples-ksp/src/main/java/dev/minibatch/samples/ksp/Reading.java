package dev.minibatch.samples.ksp;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * A Java sample in the same KSP2 run as the Kotlin one: KSP2 reads Java sources too.
 *
 * @param values three sensor values
 * @param alarm the label, 1 for an alarm
 */
@DataProvider(batchSize = 2)
public record Reading(@Provides(shape = {3}) float[] values, @Provides(label = true) int alarm) {}
