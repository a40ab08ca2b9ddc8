package dev.minibatch.runtime.internal.pipeline;

import java.lang.ref.Cleaner;

/**
 * The one {@link Cleaner} of the runtime, on a single daemon thread named {@code
 * minibatch-cleaner}: it stops the threads of iterators dropped without being closed (a {@code
 * break} out of a for-each loop). Not API: shared by the pipeline engine and the file providers so
 * the runtime starts one such thread, not one per package.
 */
public final class ThreadCleaner {
  private static final Cleaner CLEANER = Cleaner.create(r -> {
    Thread t = new Thread(r, "minibatch-cleaner");
    t.setDaemon(true);
    return t;
  });

  private ThreadCleaner() {}

  /** Runs {@code action} once {@code owner} is unreachable, unless the returned handle runs it first. */
  public static Cleaner.Cleanable register(Object owner, Runnable action) {
    return CLEANER.register(owner, action);
  }
}
