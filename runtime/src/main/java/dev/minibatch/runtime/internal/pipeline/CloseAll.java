package dev.minibatch.runtime.internal.pipeline;

import java.util.function.Consumer;

/** Closes several things as one: every one is closed even when an earlier one fails. */
public final class CloseAll {
  private CloseAll() {}

  /**
   * Runs {@code close} on every one of {@code items}, in order, whatever the others do.
   *
   * @throws RuntimeException the first failure, with the later ones suppressed in it
   */
  public static <T> void closeAll(Iterable<? extends T> items, Consumer<? super T> close) {
    RuntimeException first = null;
    for (T item : items) {
      try {
        close.accept(item);
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
