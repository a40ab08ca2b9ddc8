package dev.minibatch.runtime.internal.engine;

/**
 * Reader threads that write the batches of a random-access provider (Data Provider Core's
 * Readers), instead of the consumer's thread.
 *
 * @param stage the stage's name in failures and thread names ({@code minibatch-<stage>-<n>})
 * @param threads the number of reader threads, at least 1
 * @param slots the preallocated batch buffers in the ring, at least 2: the batch the consumer took
 *     last stays intact while it waits for the next, so readers run up to {@code slots - 2} batches
 *     ahead of the one it waits for
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
   * Up to {@code threads} readers copying from memory, over a ring of three buffers more than the
   * readers started: two for the batches the consumer may still hold (the one it took last stays
   * intact while it takes the next), one for each reader, and one the consumer writes itself rather
   * than wait. The consumer is a writer too whenever it would wait, so at
   * most one reader fewer than the machine's processors is started (at least one): on two cores,
   * {@code readers(2)} is one reader thread and the consumer. A third writer on two cores only
   * takes turns with the others, and a reader descheduled mid-batch holds up the batch the
   * consumer waits for (measured: one reader and the consumer 1.82x one thread, two readers and
   * the consumer 1.75x; docs/performance.md).
   *
   * @throws IllegalArgumentException if {@code threads < 1}
   */
  public static ReaderThreads inMemory(String stage, int threads) {
    int started = Math.min(threads, Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
    return new ReaderThreads(stage, started, started + 3, true);
  }
}
