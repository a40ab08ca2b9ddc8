package dev.minibatch.runtime.engine;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.Sampling;
import java.util.function.Function;

/**
 * Where an engine's batches go: the layout, the batch objects, the padding constants per layout
 * position (the one padding rule: a name's own constant, else the data or the label default), and
 * the preallocated rings the rows are written into.
 *
 * @param <B> the batch type
 */
final class BatchOutput<B extends AbstractBatch<B>> {
  /** Slots of the consumer-thread ring: a batch stays valid while the next one is filled. */
  static final int SLOTS = 2;

  final BatchLayout layout;
  final Function<BatchLayout, B> batches;
  final double[] padValues;
  final BatchRing<B> ring;

  /**
   * @throws IllegalArgumentException if {@code sampling} sets padding for a name the layout lacks
   */
  BatchOutput(String provider, BatchLayout layout, Function<BatchLayout, B> batches, Sampling sampling) {
    for (String name : sampling.padding().keySet()) {
      if (!layout.contains(name)) {
        throw new IllegalArgumentException(provider + ": padding set for '" + name + "', which is not provided; names are "
            + layout.names());
      }
    }
    this.layout = layout;
    this.batches = batches;
    this.padValues = new double[layout.size()];
    int nData = layout.data().size();
    for (int i = 0; i < padValues.length; i++) {
      padValues[i] = sampling.paddingFor(layout.names().get(i), i >= nData);
    }
    this.ring = new BatchRing<>(layout, SLOTS, batches);
  }

  /** A new ring of {@code slots} buffers of this layout (for reader threads). */
  BatchRing<B> newRing(int slots) {
    return new BatchRing<>(layout, slots, batches);
  }
}
