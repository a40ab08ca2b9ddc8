package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.internal.settings.Sampling;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Where an engine's batches go: the layout, the batch objects, the padding constants per layout
 * position (the one padding rule: a name's own constant, else the data or the label default), and
 * the preallocated rings the rows are written into, and their freeing on close.
 *
 * @param <B> the batch type
 */
final class BatchOutput<B extends AbstractBatch<B>> {
  /** Slots of the consumer-thread ring: a batch stays valid while the next one is filled. */
  static final int SLOTS = 2;

  final BatchLayout layout;
  final Function<BatchLayout, B> batches;
  final double[] padValues;
  final @Nullable Sequences sequences;
  private @Nullable BatchRing<B> ring;
  private @Nullable BatchRing<B> readerRing;
  private @Nullable Workers readers;

  /**
   * @throws IllegalArgumentException if {@code sampling} sets padding for a name the layout lacks
   */
  BatchOutput(String provider, BatchLayout layout, Function<BatchLayout, B> batches, Sampling sampling) {
    this(provider, layout, batches, sampling, null);
  }

  /**
   * {@link #BatchOutput(String, BatchLayout, Function, Sampling)} with variable-length members: the
   * layout reported is {@code sequences}'s view of the declared one (bounds filled in for fixed
   * shapes), the buffers are sized by their bounds.
   */
  BatchOutput(String provider, BatchLayout declared, Function<BatchLayout, B> batches, Sampling sampling,
      @Nullable Sequences sequences) {
    BatchLayout layout = sequences == null ? declared : sequences.layout(declared);
    this.sequences = sequences;
    for (String name : sampling.padding().byName().keySet()) {
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
  }

  /**
   * The consumer-thread ring, allocated on first use (a provider that is built and never iterated,
   * or rebuilt with other settings, allocates nothing). Under the engine's write lock.
   */
  BatchRing<B> ring() {
    BatchRing<B> r = ring;
    if (r == null) {
      r = new BatchRing<>(layout, SLOTS, batches, sequences);
      ring = r;
    }
    return r;
  }

  /**
   * The bytes of one slot's buffers: every member's full batch, a variable axis counted at its
   * bound (the buffers the ring allocates first; a member without a bound grows beyond them).
   */
  long slotBytes() {
    long bytes = 0;
    for (dev.minibatch.DataDesc d : layout.all()) {
      long elements = 1;
      for (long dim : d.shape().toLongArray()) {
        elements *= dim == dev.minibatch.shape.Shape.VARIABLE ? Math.max(1, d.maxLength()) : dim;
      }
      bytes += elements * d.dtype().byteSize();
    }
    return bytes;
  }

  /**
   * The reader threads' ring of {@code slots} buffers, allocated on first use; {@code workers} are
   * the threads that write it now. Under the engine's write lock.
   */
  BatchRing<B> readerRing(int slots, Workers workers) {
    BatchRing<B> r = readerRing;
    if (r == null) {
      r = new BatchRing<>(layout, slots, batches, sequences);
      readerRing = r;
    }
    readers = workers;
    return r;
  }

  /**
   * Frees the rings' native memory now. The reader ring is left to the garbage collector if a
   * reader did not stop (one stuck in user code could still write). Under the engine's write lock,
   * after the iteration's threads were stopped.
   */
  void free() {
    BatchRing<B> r = ring;
    if (r != null) {
      r.close();
    }
    BatchRing<B> rr = readerRing;
    Workers w = readers;
    if (rr != null && (w == null || w.stopped())) {
      rr.close();
    }
  }

  /**
   * The engines' close: ends the iteration (stopping its threads), then frees the rings — unless an
   * unfinished iteration runs on another live thread, whose consumer may still read a batch: then
   * the garbage collector frees them once it is dropped.
   */
  void close(IterationGuard guard) {
    boolean inUse = guard.iteratedElsewhere();
    if (!guard.close() || inUse) {
      return;
    }
    guard.lockWriting();
    try {
      free();
    } finally {
      guard.unlockWriting();
    }
  }
}
