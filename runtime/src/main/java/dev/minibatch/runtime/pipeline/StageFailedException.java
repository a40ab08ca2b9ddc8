package dev.minibatch.runtime.pipeline;

/**
 * A stage of a pipeline failed on one sample. Thrown to the consumer at its next call, on the
 * consumer's thread; {@link #getCause()} is the original exception, with the stack trace of the
 * thread that raised it.
 */
public final class StageFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The sample index used when the failure concerns no particular sample. */
  public static final long NO_SAMPLE = -1;

  private final String stage;
  private final long sampleIndex;

  /**
   * A failure of {@code stage} on the sample at {@code sampleIndex} of that stage's input.
   *
   * @param stage the stage's name, e.g. {@code "xmap"}
   * @param sampleIndex the index of the sample in the stage's input stream (from 0), or {@link
   *     #NO_SAMPLE}
   * @param cause the original exception
   */
  public StageFailedException(String stage, long sampleIndex, Throwable cause) {
    super(message(stage, sampleIndex, cause), cause);
    this.stage = stage;
    this.sampleIndex = sampleIndex;
  }

  private static String message(String stage, long sampleIndex, Throwable cause) {
    String where = sampleIndex == NO_SAMPLE ? "" : " on sample " + sampleIndex;
    return "stage '" + stage + "' failed" + where + ": " + cause;
  }

  /** The name of the stage that failed. */
  public String stage() {
    return stage;
  }

  /** The index of the sample in the failed stage's input, or {@link #NO_SAMPLE}. */
  public long sampleIndex() {
    return sampleIndex;
  }

  /**
   * {@code failure} as it should reach a consumer: a failure of an earlier stage passes through
   * unchanged (it already names its stage); anything else is wrapped as a failure of {@code stage}.
   */
  public static StageFailedException of(String stage, long sampleIndex, Throwable failure) {
    if (failure instanceof StageFailedException) {
      return (StageFailedException) failure;
    }
    return new StageFailedException(stage, sampleIndex, failure);
  }

  /** A copy thrown on the consumer's thread, so its stack trace shows where the consumer was. */
  public StageFailedException rethrownHere() {
    StageFailedException e = new StageFailedException(stage, sampleIndex, getCause());
    return e;
  }
}
