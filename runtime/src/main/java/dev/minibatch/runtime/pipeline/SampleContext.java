package dev.minibatch.runtime.pipeline;

import java.util.SplittableRandom;

/**
 * What a context-aware map function ({@code Reader.xmap(options, (sample, context) -> ...)}) knows about the sample it maps. Valid only during the call: the
 * engine reuses the object for the next sample.
 */
public interface SampleContext {
  /** The sample's position in the stage's input for this pass, from 0. */
  long index();

  /** The pass (epoch) of the reader, from 0. */
  int epoch();

  /**
   * A random generator seeded from (seed, epoch, index) alone: augmentation drawn from it is the
   * same whatever the number of workers and whichever worker maps the sample.
   */
  SplittableRandom random();
}
