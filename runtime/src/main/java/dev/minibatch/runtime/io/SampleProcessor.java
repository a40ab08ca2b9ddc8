package dev.minibatch.runtime.io;

import dev.minibatch.runtime.pipeline.SampleContext;

/**
 * A process function (Data Provider Core's {@code process}): turns one sample into what the batch
 * holds. It runs on the provider's reader threads, concurrently: it must not rely on
 * unsynchronised shared state. The returned sample must hold the same names in the same order, each
 * array with the sample shape the provider declares (any element type; it is converted to the
 * batch's). The input's arrays are views of the loaded data: do not write into them.
 *
 * <p>Random augmentation must draw from {@link SampleContext#random()}, seeded from (seed, epoch,
 * position in the epoch) alone, so the batches are the same for any number of reader threads.
 */
@FunctionalInterface
public interface SampleProcessor {
  /** Processes {@code sample}; {@code context} gives its position in the epoch and a random generator. */
  Sample apply(Sample sample, SampleContext context);
}
