package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import java.util.function.Function;

/**
 * A ring of preallocated batch buffers ({@link BatchSlot}s), one array per layout name in each slot,
 * sized for a full batch. The engine fills a slot in place and publishes it as a batch; in steady
 * state nothing is allocated per batch. With {@code n} slots, a batch stays intact while the next
 * {@code n - 1} are being filled.
 *
 * @param <B> the batch type the slots publish
 */
final class BatchRing<B extends AbstractBatch<B>> implements AutoCloseable {
  private final BatchSlot<B>[] slots;
  private int next;

  /**
   * Allocates {@code slotCount} slots for {@code layout}, whose descriptions' first axis is the
   * full batch size.
   */
  @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is made raw, then typed
  BatchRing(BatchLayout layout, int slotCount, Function<BatchLayout, B> batchFactory) {
    this(layout, slotCount, batchFactory, null);
  }

  /** {@link #BatchRing(BatchLayout, int, Function)} with buffers sized for variable-length members. */
  @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is made raw, then typed
  BatchRing(BatchLayout layout, int slotCount, Function<BatchLayout, B> batchFactory,
      @org.jspecify.annotations.Nullable Sequences sequences) {
    if (slotCount < 1) {
      throw new IllegalArgumentException("need at least one buffer slot, got " + slotCount);
    }
    slots = new BatchSlot[slotCount];
    for (int s = 0; s < slotCount; s++) {
      slots[s] = new BatchSlot<>(layout, batchFactory.apply(layout), sequences);
    }
  }

  /** The next slot of the ring, to be filled and published. */
  BatchSlot<B> next() {
    BatchSlot<B> s = slots[next];
    next = (next + 1) % slots.length;
    return s;
  }

  /** Slot {@code i} (for reader threads, which address slots by batch number). */
  BatchSlot<B> slot(int i) {
    return slots[i];
  }

  /** The number of slots. */
  int size() {
    return slots.length;
  }

  /** Frees the buffers' native memory now instead of at garbage collection. */
  @Override
  public void close() {
    for (BatchSlot<B> s : slots) {
      s.close();
    }
  }
}
