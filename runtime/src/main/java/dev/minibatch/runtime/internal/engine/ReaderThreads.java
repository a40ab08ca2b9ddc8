package dev.minibatch.runtime.internal.engine;

/**
 * Reader threads that write the batches of a random-access provider (Data Provider Core's
 * Readers), instead of the consumer's thread.
 *
 * @param stage the stage's name in failures and thread names ({@code minibatch-<stage>-<n>})
 * @param threads the number of reader threads, at least 1
 * @param slots the preallocated batch buffers in the ring, at least 2: readers run up to {@code
 *     slots - 1} batches ahead of the consumer
 * @param consumerWrites whether a consumer that would wait for its batch writes the next free
 *     batch itself meanwhile: for in-memory copies, where a batch takes microseconds; never where
 *     a batch runs user code or decodes files, which the docs promise run on the reader threads
 *     and which would delay the consumer by a whole batch
 */
public record ReaderThreads(String stage, int threads, int slots, boolean consumerWrites) {
  /** Checks the counts. */
  public ReaderThreads {
    if (threads < 1) {
      throw new IllegalArgumentException("readers must be >= 1, got " + threads);
    }
    if (slots < 2) {
      throw new IllegalArgumentException("the ring needs at least 2 batch buffers, got " + slots);
    }
  }

  /** Readers whose consumer only waits. */
  public ReaderThreads(String stage, int threads, int slots) {
    this(stage, threads, slots, false);
  }

  /**
   * {@code threads} readers copying from memory, over a ring of {@code threads + 2} buffers: one
   * for the batch the consumer holds, one for each reader, and one the consumer writes itself
   * rather than wait.
   */
  public static ReaderThreads inMemory(String stage, int threads) {
    return new ReaderThreads(stage, threads, threads + 2, true);
  }
}
