package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.Settings;
import org.jspecify.annotations.Nullable;

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
 * @param autotune the budget within which a tuner chooses, while the epochs run, how many of the
 *     {@code threads} write and how far ahead ({@link ReaderTuner}); then {@code threads} and
 *     {@code slots} are the most it may use (the ring is cut to the budget's memory when it is
 *     allocated). Null: all {@code threads} write up to {@code slots - 2} batches ahead.
 */
record ReaderThreads(String stage, int threads, int slots, boolean consumerWrites,
    Settings.@Nullable Autotune autotune) {
  /** Checks the counts. */
  ReaderThreads {
    if (threads < 1) {
      throw new IllegalArgumentException("readers must be >= 1, got " + threads);
    }
    if (slots < 2) {
      throw new IllegalArgumentException("the ring needs at least 2 batch buffers, got " + slots);
    }
  }

  /** Readers set by hand. */
  ReaderThreads(String stage, int threads, int slots, boolean consumerWrites) {
    this(stage, threads, slots, consumerWrites, null);
  }

  /** Readers set by hand whose consumer only waits. */
  ReaderThreads(String stage, int threads, int slots) {
    this(stage, threads, slots, false, null);
  }

  /** The most batches a tuner lets {@code threads} readers write ahead: enough to ride out a slow batch per reader. */
  static int mostAhead(int threads) {
    return 2 * threads + 2;
  }

  /**
   * The readers {@code workers} sets, or null where it sets none: {@code workers.readers()} threads
   * whose consumer only waits, over the ring {@link Settings.Workers} describes.
   */
  static @Nullable ReaderThreads of(String stage, Settings.Workers workers) {
    Settings.Autotune tune = workers.autotune();
    if (tune != null) {
      return new ReaderThreads(stage, tune.cpus(), mostAhead(tune.cpus()) + 2, false, tune);
    }
    int threads = workers.readers();
    return threads == 0 ? null : new ReaderThreads(stage, threads, workers.batchesAhead(threads) + 2, false, null);
  }

  /**
   * The readers {@code workers} sets for copies from memory, or null where it sets none. The
   * consumer is a writer too whenever it would wait, so at most one reader fewer than the machine's
   * processors is started (at least one): on two cores, {@code readers(2)} is one reader thread and
   * the consumer. A third writer on two cores only takes turns with the others, and a reader
   * descheduled mid-batch holds up the batch the consumer waits for (measured: one reader and the
   * consumer 1.82x one thread, two readers and the consumer 1.75x; docs/performance.md). The ring
   * follows {@link Settings.Workers} for the readers started. Autotuned, the tuner may use as many
   * as the budget's cpus allow within that cap.
   */
  static @Nullable ReaderThreads inMemory(String stage, Settings.Workers workers) {
    Settings.Autotune tune = workers.autotune();
    int most = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
    if (tune != null) {
      int threads = Math.min(tune.cpus(), most);
      return new ReaderThreads(stage, threads, mostAhead(threads) + 2, true, tune);
    }
    if (workers.readers() == 0) {
      return null;
    }
    int started = Math.min(workers.readers(), most);
    return new ReaderThreads(stage, started, workers.batchesAhead(started) + 2, true, null);
  }
}
