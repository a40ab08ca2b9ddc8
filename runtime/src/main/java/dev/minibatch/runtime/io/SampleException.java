package dev.minibatch.runtime.io;

/**
 * Reading or processing one sample failed on a reader thread. It reaches the consumer as the cause
 * of a {@link dev.minibatch.runtime.pipeline.StageFailedException} naming the stage; this exception
 * names the sample's index and where it comes from (for HDF5: the file, the datasets and the row),
 * and its own cause is the original exception.
 */
public final class SampleException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int sampleIndex;

  /**
   * A failure on sample {@code sampleIndex}, whose origin is described by {@code origin}.
   *
   * @param sampleIndex the sample's index in the provider (its source order)
   * @param origin where the sample comes from, e.g. {@code "file a.h5, datasets [x, y], row 3"}
   * @param what what was being done, e.g. {@code "the process function failed"}
   * @param cause the original exception
   */
  public SampleException(int sampleIndex, String origin, String what, Throwable cause) {
    super("sample " + sampleIndex + " (" + origin + "): " + what + ": " + cause, cause);
    this.sampleIndex = sampleIndex;
  }

  /** The sample's index in the provider (its source order). */
  public int sampleIndex() {
    return sampleIndex;
  }
}
