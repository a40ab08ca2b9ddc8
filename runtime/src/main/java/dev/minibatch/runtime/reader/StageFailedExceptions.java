package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.StageFailedException;

/** Wraps a failure of a sequential decorator, passing failures of earlier stages through. */
final class StageFailedExceptions {
  private StageFailedExceptions() {}

  static StageFailedException wrap(String stage, long index, RuntimeException e) {
    return e instanceof StageFailedException ? (StageFailedException) e : new StageFailedException(stage, index, e);
  }
}
