package dev.minibatch.shards;

import dev.minibatch.runtime.internal.pipeline.HandOff;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * A segment's file writes (a file opened, a row group's pages, a file's end), run in the order
 * given on one thread of the runtime's engine ({@code minibatch-shard-write-0}) while the segment's
 * own thread gathers the next rows. A row group's bytes go to the file system in a pass of their
 * own (the page checksums, the copy into the write buffer, the write into the page cache): about
 * four fifths of the writer's time on image sets, which the gathering now overlaps
 * (docs/performance.md, "Writing behind the rows").
 *
 * <p>The first failure of a write is thrown, as it was thrown, by the segment thread's next hand-off
 * ({@link #submit} or a wait; writes after it are dropped). {@link #inline()} runs every write on
 * the caller's thread at once. The thread ends when no write is queued (a writer left idle holds
 * none) and is started again by the next write.
 */
final class WriteBehind implements AutoCloseable {
  /** One write; an I/O failure is thrown unchecked, naming its file. */
  @FunctionalInterface
  interface Write {
    void run();
  }

  private static final String STAGE = "shard-write";

  private final boolean behind;
  private final HandOff handOff;
  // Under the hand-off's lock: the writes queued, how many were given and how many are done (run,
  // failed or dropped), in order; the thread draining the queue, and the last one started.
  private final ArrayDeque<Write> queue = new ArrayDeque<>();
  private long given;
  private long done;
  private boolean draining;
  private @Nullable Workers last;
  private volatile @Nullable RuntimeException failure;

  private WriteBehind(boolean behind) {
    this.behind = behind;
    this.handOff = new HandOff(new StageCounters(STAGE, 1, 1, () -> 0), 1);
  }

  /** Writes run on a thread of their own, in order. */
  static WriteBehind onItsOwnThread() {
    return new WriteBehind(true);
  }

  /** Writes run on the caller's thread when given. */
  static WriteBehind inline() {
    return new WriteBehind(false);
  }

  /**
   * Queues {@code write} behind those given before (runs it now, inline); returns its number, for
   * {@link #awaitDone} (from 1, in order).
   *
   * @throws RuntimeException the first failure of a write given before
   */
  long submit(Write write) {
    throwFailure();
    if (!behind) {
      write.run();
      return ++given;
    }
    return handOff.locked(() -> {
      queue.add(write);
      if (!draining) {
        Workers w = new Workers(STAGE);
        w.start(this::drain);
        draining = true;
        last = w;
      }
      return ++given;
    });
  }

  /**
   * Waits until write {@code number} and those before it are done (0: returns at once): a buffer
   * handed to it is free again.
   *
   * @throws RuntimeException the first failure of a write
   * @throws java.io.UncheckedIOException wrapping an interrupt while waiting (the status is kept)
   */
  void awaitDone(long number) {
    if (behind && number > 0) {
      try {
        handOff.put(() -> done >= number ? Boolean.TRUE : null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.UncheckedIOException(new java.io.InterruptedIOException("interrupted while a shard file was written"));
      }
    }
    throwFailure();
  }

  /** Waits for every write given so far; throws the first failure of one. */
  void await() {
    awaitDone(handOff.locked(() -> given));
  }

  private void throwFailure() {
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
  }

  /** The thread's loop: runs the writes queued, in order, then ends (the next write starts another). */
  private void drain() {
    while (true) {
      Write next = handOff.locked(() -> {
        Write w = queue.poll();
        if (w == null) {
          draining = false;
        }
        return w;
      });
      if (next == null) {
        return;
      }
      try {
        if (failure == null) {
          next.run();
        }
      } catch (Throwable e) {
        // Kept as thrown (an UncheckedIOException naming the file), for the segment's thread.
        failure = e instanceof RuntimeException r ? r : new StageFailedException(STAGE, StageFailedException.NO_SAMPLE, e);
      } finally {
        handOff.free(() -> done++);
      }
    }
  }

  /**
   * Drops the writes not yet run and waits for the one running to end, however long it takes (the
   * caller deletes the files and returns the codecs next), then for the thread: after this no write
   * touches the segment's files. An interrupt does not end the wait; the status is kept.
   */
  @Override
  public void close() {
    if (!behind) {
      return;
    }
    Workers w = handOff.locked(() -> {
      done += queue.size();
      queue.clear();
      return last;
    });
    if (w == null) {
      return;
    }
    // The running write is not interrupted (an interrupted file channel is closed under it, and a
    // Hadoop stream may leave its lease or upload behind): it ends as it would, then the thread.
    boolean interrupted = false;
    while (true) {
      try {
        handOff.put(() -> done >= given ? Boolean.TRUE : null);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    // Past its last write, the thread only returns.
    w.join();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
