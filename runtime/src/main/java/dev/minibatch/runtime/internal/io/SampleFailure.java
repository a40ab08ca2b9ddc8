package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.io.SampleProcessor.SampleException;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.function.IntFunction;

/** A failure on one sample inside a reader thread, before it is given its stage and origin. */
final class SampleFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String step;
  private final int sample;
  private final String what;

  SampleFailure(String step, int sample, String what, Throwable cause) {
    super(what, cause);
    this.step = step;
    this.sample = sample;
    this.what = what;
  }

  /** The failure as the consumer sees it: the stage and step, the sample, its origin, the original cause. */
  StageFailedException named(String stage, IntFunction<String> origin) {
    Throwable cause = getCause() != null ? getCause() : this;
    return new StageFailedException(stage + " " + step, sample,
        new SampleException(sample, origin.apply(sample), what, cause));
  }
}
