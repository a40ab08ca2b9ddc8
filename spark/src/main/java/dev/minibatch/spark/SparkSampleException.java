package dev.minibatch.spark;

import org.jspecify.annotations.Nullable;

/**
 * A sample that failed on an executor (a row that does not fit the record, a record that does not
 * fit its shape, a collate failure), naming the sample and carrying the original cause. Spark
 * wraps a failed task in a {@code SparkException}; the minibatch actions ({@link SparkSamples}'s
 * indexing, {@link SparkBatches#save}, {@link SparkSamples#materialize}) unwrap it, and {@link
 * #unwrap(Throwable)} does the same for the user's own actions on the batch RDDs.
 */
public final class SparkSampleException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long index;

  /**
   * A failure of the sample {@code index}, described by {@code where}.
   *
   * @param where which sample, in words ("row 17 of the data set")
   * @param index the sample's global index; -1 when it has none yet (input not yet indexed)
   * @param cause what went wrong
   */
  public SparkSampleException(String where, long index, Throwable cause) {
    super(where + ": " + cause.getMessage(), cause);
    this.index = index;
  }

  private SparkSampleException(SparkSampleException remote, Throwable job) {
    super(remote.getMessage(), remote.getCause());
    this.index = remote.index;
    addSuppressed(job);
  }

  /** The failed sample's global index; -1 when it failed before it had one. */
  public long index() {
    return index;
  }

  /**
   * The {@code SparkSampleException} in {@code t}'s cause chain, as a new exception (with the
   * original cause, and {@code t} suppressed); or null when there is none.
   */
  public static @Nullable SparkSampleException unwrap(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SparkSampleException s) {
        return c == t ? s : new SparkSampleException(s, t);
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  /** Runs a Spark action; a sample failure inside it is rethrown unwrapped. */
  static <R> R action(java.util.function.Supplier<R> action) {
    try {
      return action.get();
    } catch (Exception e) { // Spark's actions throw the checked SparkException undeclared
      SparkSampleException s = unwrap(e);
      if (s != null) {
        throw s;
      }
      throw SparkSampleException.<RuntimeException>sneaky(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> E sneaky(Exception e) throws E {
    throw (E) e;
  }
}
