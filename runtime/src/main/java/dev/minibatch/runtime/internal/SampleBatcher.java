package dev.minibatch.runtime.internal;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchBuffers;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Sampling;
import dev.minibatch.runtime.sampling.EpochPlan;
import dev.minibatch.runtime.sampling.PlannedEpoch;
import dev.minibatch.runtime.sampling.SampleScheduler;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * NOT API: the iteration engine behind every generated provider. A random-access source (a {@link
 * List}) is scheduled by {@link SampleScheduler} exactly as {@link
 * dev.minibatch.runtime.ArrayDataProvider} is — every {@link LastBatch} policy, shuffle, shards,
 * resumable state; a streaming source (any {@link Iterable}) is read in order, one pass per epoch.
 * Samples are collated, one call per batch, by the generated {@link Collator} into a ring of two {@link BatchBuffers}
 * slots, so a batch is valid until the iterator has moved two batches on.
 *
 * @param <S> the sample type
 * @param <B> the generated batch type
 */
public final class SampleBatcher<S, B extends AbstractBatch<B>> implements AutoCloseable {
  private static final int SLOTS = 2;

  private final String providerName;
  private final @Nullable List<? extends S> list;
  private final @Nullable Iterable<? extends S> stream;
  private final @Nullable SampleScheduler scheduler;
  private final Sampling sampling;
  private final int batchSize;
  private final BatchLayout layout;
  private final BatchBuffers<B> buffers;
  private final Collator<S> collator;
  private final double[] padValues;
  /** The scheduler's indices of the current batch (List sources); wrap positions (streaming). */
  private final int[] indexBuffer;
  /** 0, 1, 2, ...: the positions of a streaming batch's samples in {@code rowSamples}. */
  private final int[] identity;
  private final List<BatchBuffers.Slot<B>> slots = new ArrayList<>(SLOTS);
  private final List<CollateTarget> targets = new ArrayList<>(SLOTS);
  /** Streaming ROLL_OVER: samples carried into the next epoch, with their indices. */
  private final List<S> carried = new ArrayList<>();
  private long[] carriedIndex = new long[0];
  private long streamGeneration;
  private volatile boolean closed;

  private SampleBatcher(String providerName, @Nullable List<? extends S> list, @Nullable Iterable<? extends S> stream,
      Sampling sampling, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches, Collator<S> collator) {
    this.providerName = providerName;
    this.list = list;
    this.stream = stream;
    this.sampling = sampling;
    this.collator = collator;
    if (list != null) {
      this.scheduler = new SampleScheduler(list.size(), sampling);
      this.batchSize = scheduler.batchSize();
    } else {
      this.scheduler = null;
      if (sampling.batchSize() <= 0) {
        throw new IllegalArgumentException(providerName + ": a streaming (Iterable) source needs a batch size > 0; "
            + "set batchSize(n) on the builder or in @DataProvider(batchSize = n)");
      }
      if (sampling.shuffle()) {
        throw new IllegalArgumentException(providerName + ": shuffle needs a random-access source; pass a List "
            + "to samples(...) instead of an Iterable");
      }
      if (sampling.evenShards()) {
        throw new IllegalArgumentException(providerName + ": evenShards needs a random-access source of known size; "
            + "pass a List to samples(...)");
      }
      this.batchSize = sampling.batchSize();
    }
    this.layout = layouts.apply(batchSize);
    for (String name : sampling.padding().keySet()) {
      if (!layout.contains(name)) {
        throw new IllegalArgumentException(providerName + ": padding set for '" + name
            + "', which is not provided; names are " + layout.names());
      }
    }
    this.padValues = new double[layout.size()];
    int nData = layout.data().size();
    for (int i = 0; i < padValues.length; i++) {
      padValues[i] = sampling.paddingFor(layout.names().get(i), i >= nData);
    }
    this.buffers = new BatchBuffers<>(layout, SLOTS, batches);
    this.indexBuffer = new int[batchSize];
    this.identity = new int[batchSize];
    for (int i = 0; i < batchSize; i++) {
      identity[i] = i;
    }
  }

  /** An engine over a random-access source. */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> of(String providerName, List<? extends S> samples,
      Sampling sampling, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches, Collator<S> collator) {
    return new SampleBatcher<>(providerName, samples, null, sampling, layouts, batches, collator);
  }

  /** An engine over a streaming source: every epoch iterates {@code samples} once. */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> streaming(String providerName,
      Iterable<? extends S> samples, Sampling sampling, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, Collator<S> collator) {
    return new SampleBatcher<>(providerName, null, samples, sampling, layouts, batches, collator);
  }

  public int batchSize() {
    return batchSize;
  }

  public BatchLayout layout() {
    return layout;
  }

  /** The number of samples, or -1 for a streaming source. */
  public int numSamples() {
    return scheduler != null ? scheduler.numSamples() : -1;
  }

  /** The shuffle seed in use, or the configured one (0 if none) for a streaming source. */
  public long seed() {
    if (scheduler != null) {
      return scheduler.seed();
    }
    Long s = sampling.seed();
    return s != null ? s : 0;
  }

  public BatchIterator<B> iterator() {
    checkOpen();
    if (scheduler != null) {
      return new PlannedEpoch<>(scheduler.beginEpoch(), this::checkOpen, this::fillPlanned);
    }
    return new StreamEpoch(++streamGeneration);
  }

  public IterationState saveState() {
    return requireScheduler("saveState").saveState();
  }

  public void restoreState(IterationState state) {
    checkOpen();
    requireScheduler("restoreState").restoreState(state);
  }

  public void reset() {
    if (scheduler != null) {
      scheduler.reset();
    } else {
      streamGeneration++;
      carried.clear();
      carriedIndex = new long[0];
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      if (scheduler != null) {
        scheduler.supersede();
      }
      streamGeneration++;
      buffers.close();
    }
  }

  private SampleScheduler requireScheduler(String what) {
    if (scheduler == null) {
      throw new UnsupportedOperationException(providerName + "." + what + ": a streaming (Iterable) source cannot "
          + "be resumed; build the provider from a List");
    }
    return scheduler;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this " + providerName + " is closed");
    }
  }

  private CollateTarget target(BatchBuffers.Slot<B> slot) {
    for (int i = 0; i < slots.size(); i++) {
      if (slots.get(i) == slot) {
        return targets.get(i);
      }
    }
    org.nd4j.linalg.api.ndarray.INDArray[] arrays = new org.nd4j.linalg.api.ndarray.INDArray[layout.size()];
    for (int i = 0; i < arrays.length; i++) {
      arrays[i] = slot.array(i);
    }
    CollateTarget t = new CollateTarget(arrays);
    slots.add(slot);
    targets.add(t);
    return t;
  }

  private void padConstant(BatchBuffers.Slot<B> slot, int from, int to) {
    long[] idx = slot.sampleIndices();
    for (int r = from; r < to; r++) {
      idx[r] = EpochPlan.CONSTANT_PAD;
    }
    for (int i = 0; i < padValues.length; i++) {
      slot.fill(i, from, to, padValues[i]);
    }
  }

  /** Fills batch {@code j} of a List source's planned epoch. */
  private B fillPlanned(EpochPlan plan, int j) {
    int rows = plan.rows(j);
    int pad = plan.pad(j);
    plan.indices(j, indexBuffer);
    BatchBuffers.Slot<B> slot = buffers.next();
    CollateTarget t = target(slot);
    long[] idx = slot.sampleIndices();
    // Rows filled with a constant are the batch's last ones (EpochPlan); the rest are samples.
    int samples = rows;
    for (int r = 0; r < rows; r++) {
      int i = indexBuffer[r];
      if (i == EpochPlan.CONSTANT_PAD) {
        samples = r;
        break;
      }
      idx[r] = i;
    }
    collator.collate(list, indexBuffer, idx, 0, samples, t);
    if (samples < rows) {
      padConstant(slot, samples, rows);
    }
    return slot.publish(rows, pad);
  }

  /** One pass over an Iterable. */
  private final class StreamEpoch implements BatchIterator<B> {
    private final long generation;
    private final Iterator<? extends S> it;
    private final int numParts = sampling.numParts();
    private final int partIndex = sampling.partIndex();
    private final List<S> first = new ArrayList<>();
    private final long[] firstIndex = new long[batchSize];
    private final List<S> rowSamples = new ArrayList<>(batchSize);
    private final List<S> carriedIn;
    private final long[] carriedInIndex;
    private int carriedPos;
    private long position = -1;
    private boolean done;
    private @Nullable B pending;

    StreamEpoch(long generation) {
      this.generation = generation;
      this.it = stream.iterator();
      this.carriedIn = new ArrayList<>(carried);
      this.carriedInIndex = carriedIndex;
      carried.clear();
      carriedIndex = new long[0];
    }

    private void check() {
      checkOpen();
      if (generation != streamGeneration) {
        throw new IllegalStateException("this iteration of " + providerName + " is no longer current: the provider "
            + "started another iteration, was reset or closed since. One provider serves one iteration at a time");
      }
    }

    @Override
    public boolean hasNext() {
      check();
      if (pending == null && !done) {
        pending = fill();
        if (done) {
          // The source is exhausted (or its rest is not needed): stop its threads now, not at GC.
          closeSource();
        }
      }
      return pending != null;
    }

    @Override
    public B next() {
      if (!hasNext()) {
        throw new NoSuchElementException(providerName + ": the epoch is over");
      }
      B b = pending;
      pending = null;
      return b;
    }

    /** The next sample of this part, or null at the end; sets {@code lastIndex}. */
    private long lastIndex;

    private @Nullable S nextSample() {
      if (carriedPos < carriedIn.size()) {
        lastIndex = carriedInIndex[carriedPos];
        return carriedIn.get(carriedPos++);
      }
      while (it.hasNext()) {
        S s = it.next();
        position++;
        if (numParts == 1 || position % numParts == partIndex) {
          lastIndex = position;
          if (s == null) {
            throw Collate.nullSample(position);
          }
          return s;
        }
      }
      return null;
    }

    private @Nullable B fill() {
      BatchBuffers.Slot<B> slot = buffers.next();
      CollateTarget t = target(slot);
      long[] idx = slot.sampleIndices();
      rowSamples.clear();
      int r = 0;
      while (r < batchSize) {
        S s = nextSample();
        if (s == null) {
          break;
        }
        rowSamples.add(s);
        idx[r] = lastIndex;
        if (first.size() < batchSize) {
          firstIndex[first.size()] = lastIndex;
          first.add(s);
        }
        r++;
      }
      if (r > 0) {
        collator.collate(rowSamples, identity, idx, 0, r, t);
      }
      if (r == batchSize) {
        return slot.publish(r, 0);
      }
      done = true;
      if (r == 0) {
        return null;
      }
      switch (sampling.lastBatch()) {
        case PARTIAL:
          return slot.publish(r, 0);
        case DISCARD:
          return null;
        case ROLL_OVER:
          carried.addAll(rowSamples);
          carriedIndex = java.util.Arrays.copyOf(idx, r);
          return null;
        case PAD_CONSTANT:
          padConstant(slot, r, batchSize);
          return slot.publish(batchSize, batchSize - r);
        case PAD_WRAP:
          int[] wrap = indexBuffer; // unused by streaming sources otherwise
          for (int k = r; k < batchSize; k++) {
            wrap[k] = (k - r) % first.size();
            idx[k] = firstIndex[wrap[k]];
          }
          collator.collate(first, wrap, idx, r, batchSize, t);
          return slot.publish(batchSize, batchSize - r);
        default:
          throw new AssertionError(sampling.lastBatch());
      }
    }

    @Override
    public void close() {
      done = true;
      pending = null;
      closeSource();
    }

    /** Closes the source iterator if it holds resources (a reader's threads, an open file). */
    private void closeSource() {
      if (it instanceof AutoCloseable) {
        try {
          ((AutoCloseable) it).close();
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(providerName + ": closing the sample source failed", e);
        }
      }
    }
  }
}
