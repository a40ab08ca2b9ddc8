package dev.minibatch.runtime.internal.engine;

/**
 * Reader threads that write the batches of a random-access provider (Data Provider Core's
 * Readers), instead of the consumer's thread.
 *
 * @param stage the stage's name in failures and thread names ({@code minibatch-<stage>-<n>})
 * @param threads the number of reader threads, at least 1
 * @param slots the preallocated batch buffers in the ring, at least 2: readers run up to {@code
 *     slots - 1} batches ahead of the consumer
 */
public record ReaderThreads(String stage, int threads, int slots) {
  /** Checks the counts. */
  public ReaderThreads {
    if (threads < 1) {
      throw new IllegalArgumentException("readers must be >= 1, got " + threads);
    }
    if (slots < 2) {
      throw new IllegalArgumentException("the ring needs at least 2 batch buffers, got " + slots);
    }
  }
}
