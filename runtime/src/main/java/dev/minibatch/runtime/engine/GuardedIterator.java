package dev.minibatch.runtime.engine;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;

/**
 * The one shape of an epoch's iterator under an {@link IterationGuard}: {@code hasNext()} first
 * checks that the iteration is still current (else {@link IllegalStateException}), an iteration
 * ends exactly once — at its end, on {@code close()}, or on a failure — releasing what it holds and
 * telling the guard, and after that {@code hasNext()} is false (or throws once the provider is
 * closed).
 *
 * @param <B> the batch type
 */
abstract class GuardedIterator<B extends Batch> implements BatchIterator<B> {
  private final IterationGuard guard;
  private final long ticket;
  private boolean ended;

  GuardedIterator(IterationGuard guard, long ticket) {
    this.guard = guard;
    this.ticket = ticket;
  }

  /** True if another batch follows; called only while the iteration is current and not ended. */
  abstract boolean more();

  /** Releases what the iteration holds (threads, sources); called once, when it ends. */
  void release() {}

  @Override
  public final boolean hasNext() {
    if (ended) {
      guard.checkOpen();
      return false;
    }
    guard.check(ticket);
    if (!more()) {
      end();
      return false;
    }
    return true;
  }

  @Override
  public final void close() {
    end();
  }

  /** Ends the iteration now (idempotent): releases, and lets another thread start one. */
  final void end() {
    if (!ended) {
      ended = true;
      release();
      guard.end(ticket);
    }
  }

  /** The guard and ticket, for writes under the guard's lock. */
  final IterationGuard guard() {
    return guard;
  }

  final long ticket() {
    return ticket;
  }
}
