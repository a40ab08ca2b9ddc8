package dev.minibatch.runtime.internal.engine;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The batching engine of streaming providers (generated providers over an {@link Iterable}, {@code
 * FeedingProvider} over a reader): every epoch is one pass of the source, in its order, sample
 * {@code i} going to shard {@code i % numParts}. The same ring, padding rule, last-batch policy
 * ({@link LastBatchPolicy}, applied to the tail when the source ends) and iteration guard as {@link
 * BatchEngine}; no shuffle and no resume, which need random access. Each pass's source iterator is
 * closed when the pass ends, is closed, superseded, or the provider closes, so a reader's threads
 * stop at once.
 *
 * @param <S> the sample type
 * @param <B> the batch type
 */
public final class StreamEngine<S, B extends AbstractBatch<B>> implements AutoCloseable {
  private final String name;
  private final Iterable<? extends S> source;
  private final Sampling sampling;
  private final int batchSize;
  private final IterationGuard guard;
  private final BatchOutput<B> output;
  /** The samples of the batch being written; positions 0, 1, … of {@link #identity}. */
  private final List<S> window;
  private final RowWriter windowRows;
  private final int[] identity;
  private final int[] wrap;
  /** ROLL_OVER: the samples carried into the next pass, and their indices. */
  private final List<S> carried = new ArrayList<>();
  private long[] carriedIndex = new long[0];
  private final SampleWriter<? super S> writer;

  /**
   * An engine over {@code source}.
   *
   * @throws IllegalArgumentException for batch size 0, shuffle, evenShards or PAD_CONTINUE (they need
   *     a random-access source), or padding for an unknown name
   */
  public StreamEngine(String name, Iterable<? extends S> source, Sampling sampling, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, SampleWriter<? super S> writer) {
    this(name, source, sampling, layouts, batches, writer, null);
  }

  /**
   * An engine over {@code source} whose samples have variable-length members: every batch is padded
   * to their bounds ({@link Sequences#streaming}).
   */
  public StreamEngine(String name, Iterable<? extends S> source, Sampling sampling, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, SampleWriter<? super S> writer, @Nullable Sequences sequences) {
    if (sampling.batchSize() <= 0) {
      throw new IllegalArgumentException(name + ": a streaming source needs a batch size >= 1 (its length is unknown); "
          + "call batchSize(n) on the builder");
    }
    if (sampling.shuffle()) {
      throw new IllegalArgumentException(name + ": shuffle needs a random-access source; pass a List instead of an "
          + "Iterable, or shuffle the reader (reader.shuffle(bufferSize, seed))");
    }
    if (sampling.evenShards()) {
      throw new IllegalArgumentException(name + ": evenShards needs a random-access source of known size; pass a List");
    }
    if (sampling.elasticShards()) {
      throw new IllegalArgumentException(name + ": elasticShards needs a random-access source (the parts take turns at"
          + " one planned order of batches); pass a List");
    }
    if (sampling.lastBatch() == LastBatch.PAD_CONTINUE) {
      throw new IllegalArgumentException(name + ": lastBatch PAD_CONTINUE needs a random-access source (it pads with "
          + "the next epoch's first samples); pass a List, or use PAD_WRAP");
    }
    this.name = name;
    this.source = source;
    this.sampling = sampling;
    this.batchSize = sampling.batchSize();
    this.guard = new IterationGuard(name);
    this.output = new BatchOutput<>(name, layouts.apply(batchSize), batches, sampling, sequences);
    this.writer = writer;
    this.window = new ArrayList<>(batchSize);
    this.windowRows = writer.over(window);
    this.identity = new int[batchSize];
    this.wrap = new int[batchSize];
    for (int i = 0; i < batchSize; i++) {
      identity[i] = i;
    }
  }

  /** Rows per full batch. */
  public int batchSize() {
    return batchSize;
  }

  /** The batch layout. */
  public BatchLayout layout() {
    return output.layout;
  }

  /** The settings' seed (a stream is never shuffled; the seed reaches its readers' draws). */
  public long seed() {
    return sampling.seed();
  }

  /** Starts a pass; see {@link IterationGuard} for concurrency. */
  public BatchIterator<B> iterator() {
    long ticket = guard.begin();
    Pass pass = new Pass(ticket, source.iterator());
    // The guard holds only the cleanable, not the pass: a pass dropped mid-epoch is collected, and
    // the cleaner then closes its source (stopping a reader's threads).
    guard.onStop(ticket, pass.sourceCloser::clean);
    return pass;
  }

  /** Closes a pass's source iterator; holds no reference to the pass. */
  private record CloseSource(Iterator<?> it, String name) implements Runnable {
    @Override
    public void run() {
      if (it instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(name + ": closing the sample source failed", e);
        }
      }
    }
  }

  /** Forgets the samples carried over by ROLL_OVER and ends the pass in progress. */
  public void reset() {
    guard.supersede();
    guard.lockWriting();
    try {
      carried.clear();
      carriedIndex = new long[0];
    } finally {
      guard.unlockWriting();
    }
  }

  /**
   * Stops the pass in progress (closing its source) and frees the batch buffers' native memory
   * (left to the garbage collector when another thread is still iterating: it may be reading a
   * batch). Idempotent.
   */
  @Override
  public void close() {
    output.close(guard);
  }

  /** One pass over the source. */
  private final class Pass extends GuardedIterator<B> {
    private final Iterator<? extends S> it;
    private final int numParts = sampling.numParts();
    private final int partIndex = sampling.partIndex();
    /** The pass's first samples, for PAD_WRAP. */
    private final List<S> first = new ArrayList<>();
    private final long[] firstIndex = new long[batchSize];
    private final List<S> carriedIn;
    private final long[] carriedInIndex;
    private int carriedPos;
    private long position = -1;
    private long lastIndex;
    private @Nullable S sample;
    private long batchNumber;
    private boolean done;
    private @Nullable B pending;
    final Cleaner.Cleanable sourceCloser;

    Pass(long ticket, Iterator<? extends S> it) {
      super(guard, ticket);
      this.it = it;
      this.sourceCloser = ThreadCleaner.register(this, new CloseSource(it, name));
      guard.lockWriting();
      try {
        this.carriedIn = new ArrayList<>(carried);
        this.carriedInIndex = carriedIndex;
        carried.clear();
        carriedIndex = new long[0];
      } finally {
        guard.unlockWriting();
      }
    }

    @Override
    protected boolean more() {
      if (pending == null && !done) {
        guard.lockWriting(ticket());
        try {
          pending = write();
        } catch (RuntimeException | Error e) {
          end();
          // A failure caused by a close or a newer iteration from elsewhere reads as that.
          guard.check(ticket());
          throw e;
        } finally {
          guard.unlockWriting();
        }
        if (done) {
          // The source is exhausted (or its rest is not needed): stop its threads now, not at GC.
          closeSource();
        }
      }
      return pending != null;
    }

    @Override
    protected void release() {
      done = true;
      pending = null;
      closeSource();
    }

    @Override
    protected B produce() {
      if (!checkMore()) {
        throw new NoSuchElementException(name + ": the epoch is over");
      }
      B b = pending;
      pending = null;
      // The iteration stays current until the consumer moves on from its last batch (hasNext()).
      return java.util.Objects.requireNonNull(b);
    }

    /**
     * Moves to the next sample of this shard: false at the end, else true with {@link #sample} and
     * {@link #lastIndex} set (a null sample is kept: the writer reports it with its index).
     */
    private boolean nextSample() {
      if (carriedPos < carriedIn.size()) {
        lastIndex = carriedInIndex[carriedPos];
        sample = carriedIn.get(carriedPos++);
        return true;
      }
      while (true) {
        S s;
        try {
          if (!it.hasNext()) {
            break;
          }
          s = it.next();
        } catch (RuntimeException e) {
          // The source's own failure, named like every stage failure (a reader's stages name themselves).
          throw StageFailedException.of("source", position + 1, e);
        }
        position++;
        if (numParts == 1 || position % numParts == partIndex) {
          lastIndex = position;
          sample = s;
          return true;
        }
      }
      return false;
    }

    /** Writes the next batch; null at the end. Under the write lock. */
    private @Nullable B write() {
      if (done) {
        return null;
      }
      BatchSlot<B> slot = output.ring().next();
      long[] idx = slot.sampleIndices();
      window.clear();
      int r = 0;
      while (r < batchSize && nextSample()) {
        S s = sample;
        window.add(s);
        idx[r] = lastIndex;
        if (first.size() < batchSize) {
          firstIndex[first.size()] = lastIndex;
          first.add(s);
        }
        r++;
      }
      slot.begin(0, batchNumber * batchSize);
      if (r > 0) {
        windowRows.write(identity, 0, r, slot);
      }
      if (r == batchSize) {
        batchNumber++;
        return slot.publish(r, 0);
      }
      done = true;
      LastBatchPolicy.Cut cut = LastBatchPolicy.cut(sampling.lastBatch(), r, batchSize);
      if (cut.carry() > 0) {
        carried.addAll(window);
        carriedIndex = Arrays.copyOf(idx, r);
      }
      if (cut.batches() == 0) {
        return null;
      }
      switch (cut.padding()) {
        case NONE:
          break;
        case CONSTANT:
          slot.padConstant(r, batchSize, output.padValues);
          break;
        case WRAP:
          for (int k = r; k < batchSize; k++) {
            wrap[k] = (k - r) % first.size();
            idx[k] = firstIndex[wrap[k]];
          }
          writer.over(first).write(wrap, r, batchSize, slot);
          break;
        default:
          throw new AssertionError(cut.padding());
      }
      return slot.publish(cut.lastRows(), cut.pad());
    }

    /** Closes the source iterator if it holds resources (a reader's threads, an open file). Idempotent. */
    void closeSource() {
      sourceCloser.clean();
    }
  }
}
