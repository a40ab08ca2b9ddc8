package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import java.util.function.Consumer;

/**
 * The one way a provider on a {@link BatchEngine} hands its next epoch to several consumers: the
 * engine's shared epoch ({@link BatchEngine#shared()}) through a {@link Multicast}. It lives here,
 * not beside the engine, because the engine's package is a layer below {@code engine.Multicast}.
 */
public final class EngineMulticast {
  private EngineMulticast() {}

  /**
   * The next epoch of {@code engine} read by {@code consumers} consumers: each sees every batch
   * once, in order, and a batch buffer is reused only after every consumer has released it. With
   * reader threads the window is the ring's slots minus one, so the readers always have a buffer to
   * fill; without, it is 1. The epoch ends for all when every consumer has closed or finished.
   *
   * @throws IllegalArgumentException if {@code consumers} is below 1
   */
  public static <B extends AbstractBatch<B>> Multicast<B> of(BatchEngine<B> engine, int consumers) {
    Multicast.Builder<B> m = Multicast.<B>builder().consumers(consumers);
    BatchEngine.SharedEpoch<B> epoch = engine.shared();
    Consumer<B> onRelease = epoch.onRelease();
    m.window(epoch.window());
    return (onRelease == null ? m : m.onRelease(onRelease)).build(epoch.source());
  }
}
