package dev.minibatch.runtime.spi;

/**
 * An epoch order that a provider draws itself instead of the engine's shuffle (class-probability
 * draws): which samples, in which order, each epoch visits. It must be a pure function of the epoch
 * number. The engine shards and cuts the draws into batches like any other order.
 */
public interface EpochDraws {
  /** Draws per epoch. */
  int length();

  /** The seed the draws are made with (reported by the provider, kept in its iteration state). */
  long seed();

  /**
   * The same draws made with {@code seed} instead: what restoring a state saved under another seed
   * makes of them (a state's seed is a value every provider takes: {@link
   * dev.minibatch.runtime.IterationState#seed()}).
   */
  EpochDraws reseeded(long seed);

  /** Writes epoch {@code epoch}'s sample indices into {@code out[0, length())}. */
  void fill(int epoch, int[] out);

  /**
   * What, beyond the seed and the length, decides the draws (a shuffle window, a mix's weights), in
   * the iteration state's settings, so that a state saved with other draws is refused, not
   * restored into another order; no ';' or line break. Empty by default.
   */
  default String describe() {
    return "";
  }
}
