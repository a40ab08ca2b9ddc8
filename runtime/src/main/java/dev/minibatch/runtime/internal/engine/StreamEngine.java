package dev.minibatch.runtime.internal.engine;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.IterationState;
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
 * BatchEngine}; no shuffle, which needs random access. Each pass's source iterator is closed when
 * the pass ends, is closed, superseded, or the provider closes, so a reader's threads stop at once.
 *
 * <p>Resume is by replay: a state holds the epoch, the batches delivered of it and the source
 * positions of the samples ROLL_OVER carried into it. {@link #restoreState} opens the source's pass
 * for that epoch again ({@link Passes#open}) and reads past the samples of the delivered batches
 * without writing them (and, with a carry, reads the epoch before to its end to take the carried
 * samples again), so the next iteration continues where the saved one stood. The source must give
 * the same samples in the same order whenever an epoch's pass is opened; one that visibly does not
 * (it hands back an iterator it gave before, refuses a second pass, or ends elsewhere) is refused.
 *
 * @param <S> the sample type
 * @param <B> the batch type
 */
public final class StreamEngine<S, B extends AbstractBatch<B>> implements AutoCloseable {
  /**
   * The source of a streaming engine: a pass per epoch.
   *
   * @param <S> the sample type
   */
  @FunctionalInterface
  public interface Passes<S> {
    /**
     * The samples of epoch {@code epoch}, from its start: the same samples in the same order each
     * time the same epoch is opened, for resume to replay it.
     */
    Iterator<? extends S> open(int epoch);
  }

  private final String name;
  private final Passes<? extends S> source;
  private final Sampling sampling;
  private final int batchSize;
  private final IterationGuard guard;
  private final BatchOutput<B> output;
  /** The samples of the batch being written; positions 0, 1, … of {@link #identity}. */
  private final List<S> window;
  private final RowWriter windowRows;
  private final int[] identity;
  private final int[] wrap;
  private final SampleWriter<? super S> writer;

  // Where iteration stands; under the guard's write lock.
  /** The epoch the next pass reads. */
  private int nextEpoch;
  /** ROLL_OVER: the samples carried into the next pass, and their source positions. */
  private final List<S> carried = new ArrayList<>();
  private long[] carriedIndex = new long[0];
  /**
   * Where the latest pass stands, or null before the first and after a restore or reset. Not the
   * pass itself: a pass dropped mid-epoch must stay collectable, for its cleaner to stop its source.
   */
  private @Nullable Cursor current;
  /** A restored epoch read up to its position, for the next {@link #iterator()}; and its state. */
  private @Nullable Cursor prepared;
  private @Nullable IterationState restored;

  /**
   * An engine over {@code source}.
   *
   * @throws IllegalArgumentException for batch size 0, shuffle, evenShards or PAD_CONTINUE (they need
   *     a random-access source), or padding for an unknown name
   */
  public StreamEngine(String name, Passes<? extends S> source, Sampling sampling, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, SampleWriter<? super S> writer) {
    this(name, source, sampling, layouts, batches, writer, null);
  }

  /**
   * An engine over {@code source} whose samples have variable-length members: every batch is padded
   * to their bounds ({@link Sequences#streaming}).
   */
  public StreamEngine(String name, Passes<? extends S> source, Sampling sampling, IntFunction<BatchLayout> layouts,
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

  /** Starts a pass (or continues the restored one); see {@link IterationGuard} for concurrency. */
  public BatchIterator<B> iterator() {
    long ticket = guard.begin();
    Cursor c;
    guard.lockWriting();
    try {
      c = prepared;
      if (c == null) {
        c = new Cursor(nextEpoch, new ArrayList<>(carried), carriedIndex);
      }
      prepared = null;
      restored = null;
      nextEpoch = c.epoch + 1;
      carried.clear();
      carriedIndex = new long[0];
    } finally {
      guard.unlockWriting();
    }
    if (c.it == null) {
      try {
        c.open();
      } catch (RuntimeException | Error e) {
        unstart(c);
        throw e;
      }
    }
    guard.epoch(ticket, c.epoch);
    Pass pass = new Pass(ticket, c);
    guard.lockWriting();
    try {
      current = c;
    } finally {
      guard.unlockWriting();
    }
    // The guard holds only the cleanable, not the pass: a pass dropped mid-epoch is collected, and
    // the cleaner then closes its source (stopping a reader's threads).
    guard.onStop(ticket, pass.sourceCloser::clean);
    return pass;
  }

  /**
   * Puts back what {@link #iterator()} took for {@code c}, whose source failed to open: the next
   * iterator() starts the same epoch again, with the samples carried into it (a pass that cannot be
   * opened yet, such as a file briefly unreadable, must not cost an epoch or its carry).
   */
  private void unstart(Cursor c) {
    guard.lockWriting();
    try {
      if (nextEpoch == c.epoch + 1) {
        nextEpoch = c.epoch;
        carried.clear();
        carried.addAll(c.carriedIn);
        carriedIndex = c.carriedInIndex;
      }
    } finally {
      guard.unlockWriting();
    }
  }

  /**
   * Where iteration stands: the epoch of the latest pass and the batches delivered of it, or, once
   * that pass has delivered its last batch, the next epoch and the samples carried into it.
   */
  public IterationState saveState() {
    guard.lockWriting();
    try {
      IterationState r = restored;
      if (r != null) {
        return r;
      }
      Cursor p = current;
      if (p != null && !p.over()) {
        return state(p.epoch, p.delivered, p.carriedInIndex);
      }
      return state(nextEpoch, 0, carriedIndex);
    } finally {
      guard.unlockWriting();
    }
  }

  private IterationState state(int epoch, int position, long[] carriedIn) {
    int[] c = new int[carriedIn.length];
    for (int i = 0; i < c.length; i++) {
      if (carriedIn[i] > Integer.MAX_VALUE) {
        throw new IllegalStateException(name + ": cannot save the iteration state: a carried sample is at position "
            + carriedIn[i] + " of its pass, beyond what a state holds (" + Integer.MAX_VALUE + ")");
      }
      c[i] = (int) carriedIn[i];
    }
    return new IterationState(sampling.seed(), epoch, position, c, fingerprint());
  }

  /** What a state must match: a stream (not a random-access source) cut and sharded the same way. */
  private String fingerprint() {
    return "stream,batch=" + batchSize + ",lastBatch=" + sampling.lastBatch() + ",parts=" + sampling.numParts()
        + ",part=" + sampling.partIndex();
  }

  /**
   * Continues from {@code state} at the next iteration, replaying the source now: its pass of the
   * state's epoch is read past the delivered batches (and with carried samples, the pass before it
   * to its end), without writing them. The iteration in progress ends first, even if the state is
   * then refused.
   *
   * @throws IllegalArgumentException if the state belongs to other settings or another kind of
   *     provider, or its position lies beyond its epoch
   * @throws IllegalStateException if the source cannot be replayed: it hands back an iterator it
   *     gave before, refuses to start the pass again, or gives other samples than when the state
   *     was saved
   */
  public void restoreState(IterationState state) {
    guard.checkOpen();
    guard.supersede();
    String fingerprint = fingerprint();
    if (!state.settings().equals(fingerprint)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other data or settings, or by "
          + "another kind of provider:\n  saved:    " + state.settings() + "\n  this one: " + fingerprint);
    }
    int[] c = state.carried();
    if (c.length > 0 && (sampling.lastBatch() != LastBatch.ROLL_OVER || state.epoch() == 0 || c.length >= batchSize)) {
      throw new IllegalArgumentException("iteration state: " + c.length + " carried samples into epoch " + state.epoch()
          + "; a stream carries fewer than a batch (" + batchSize + "), only under ROLL_OVER and not into epoch 0");
    }
    Cursor replayed = replay(state);
    Cursor old;
    guard.lockWriting();
    try {
      old = prepared;
      prepared = replayed;
      restored = state;
      current = null;
      nextEpoch = state.epoch();
      carried.clear();
      carriedIndex = new long[0];
    } finally {
      guard.unlockWriting();
    }
    if (old != null) {
      old.close();
    }
  }

  /** The pass of {@code state}'s epoch, read up to its position (see {@link #restoreState}). */
  private Cursor replay(IterationState state) {
    List<Iterator<?>> earlier = new ArrayList<>();
    guard.lockWriting();
    try {
      // A one-shot source hands back the iterator it gave before: none of these may come back.
      if (current != null && current.it != null) {
        earlier.add(current.it);
      }
      if (prepared != null && prepared.it != null) {
        earlier.add(prepared.it);
      }
    } finally {
      guard.unlockWriting();
    }
    int[] c = state.carried();
    List<S> carriedIn = new ArrayList<>(c.length);
    long[] carriedInIndex = new long[c.length];
    if (c.length > 0) {
      // The carried samples are the last of this part in the epoch before: read it to its end,
      // keeping the last c.length in a ring.
      Cursor previous = new Cursor(state.epoch() - 1, new ArrayList<>(), new long[0]);
      previous.open(earlier);
      earlier.add(java.util.Objects.requireNonNull(previous.it));
      try {
        List<@Nullable S> tail = new ArrayList<>(c.length);
        long[] tailIndex = new long[c.length];
        long seen = 0;
        while (previous.nextSample()) {
          int at = (int) (seen++ % c.length);
          if (tail.size() <= at) {
            tail.add(previous.sample);
          } else {
            tail.set(at, previous.sample);
          }
          tailIndex[at] = previous.lastIndex;
        }
        long[] found = new long[(int) Math.min(seen, c.length)];
        for (int k = 0; k < found.length; k++) {
          int at = (int) ((seen - found.length + k) % c.length);
          found[k] = tailIndex[at];
          carriedIn.add(tail.get(at));
        }
        if (found.length != c.length || !Arrays.equals(found, Arrays.stream(c).asLongStream().toArray())) {
          throw notReplayable("read again, epoch " + (state.epoch() - 1) + " gave " + seen + " samples of this part, "
              + "the last at " + Arrays.toString(found) + ", where the state carries the samples at "
              + Arrays.toString(c) + " from it", null);
        }
        System.arraycopy(found, 0, carriedInIndex, 0, found.length);
      } finally {
        previous.close();
      }
    }
    Cursor cursor = new Cursor(state.epoch(), carriedIn, carriedInIndex);
    cursor.open(earlier);
    try {
      cursor.skip(state.position());
    } catch (RuntimeException | Error e) {
      cursor.close();
      throw e;
    }
    return cursor;
  }

  private IllegalStateException notReplayable(String why, @Nullable Throwable cause) {
    return new IllegalStateException(name + ": cannot resume: the source cannot be replayed (" + why + "). Resume reads "
        + "the epoch's pass again from its start, so every pass of an epoch must give the same samples in the same "
        + "order: use a Reader or an Iterable whose every iterator() starts again from the beginning (a List, "
        + "Readers.from(list), Readers.lines(path), a seeded reader.shuffle), or a List source, which resumes without "
        + "reading", cause);
  }

  /** Forgets the samples carried over by ROLL_OVER and ends the pass in progress. */
  public void reset() {
    guard.supersede();
    Cursor old;
    guard.lockWriting();
    try {
      carried.clear();
      carriedIndex = new long[0];
      current = null;
      old = prepared;
      prepared = null;
      restored = null;
    } finally {
      guard.unlockWriting();
    }
    if (old != null) {
      // The restored epoch is dropped: the next pass starts its epoch afresh.
      old.close();
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
    Cursor old;
    guard.lockWriting();
    try {
      old = prepared;
      prepared = null;
    } finally {
      guard.unlockWriting();
    }
    if (old != null) {
      old.close();
    }
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

  /**
   * Where one pass stands in its source: the samples of this part read so far (after those carried
   * in), the pass's first samples (for PAD_WRAP), and the batches written; what a restore replays
   * and a pass then continues.
   */
  private final class Cursor {
    final int epoch;
    @Nullable Iterator<? extends S> it;
    private final int numParts = sampling.numParts();
    private final int partIndex = sampling.partIndex();
    /** The pass's first samples, for PAD_WRAP. */
    final List<S> first = new ArrayList<>();
    final long[] firstIndex = new long[batchSize];
    final List<S> carriedIn;
    final long[] carriedInIndex;
    private int carriedPos;
    /** The source position of the last sample read, of any part. */
    private long position = -1;
    long lastIndex;
    @Nullable S sample;
    /** Batches written (or read past by a replay), and whether the source's end was reached. */
    int written;
    boolean sourceEnded;
    /** Batches delivered to the consumer, counting those a restore read past. */
    int delivered;

    Cursor(int epoch, List<S> carriedIn, long[] carriedInIndex) {
      this.epoch = epoch;
      this.carriedIn = carriedIn;
      this.carriedInIndex = carriedInIndex;
    }

    /** Opens the source's pass of this epoch, for a new pass. */
    void open() {
      it = source.open(epoch);
    }

    /**
     * Opens the source's pass of this epoch again, for a replay: {@code earlier}, the iterators of
     * passes opened before, must not come back.
     */
    void open(List<Iterator<?>> earlier) {
      Iterator<? extends S> opened;
      try {
        opened = source.open(epoch);
      } catch (IllegalStateException e) {
        // What a one-shot source (a Stream's iterator, asked twice) throws.
        throw notReplayable("it refused to start epoch " + epoch + " again: " + e.getMessage(), e);
      }
      for (Iterator<?> e : earlier) {
        if (opened == e) {
          throw notReplayable("it handed back the iterator of an earlier pass instead of starting epoch " + epoch
              + " again", null);
        }
      }
      it = opened;
    }

    /**
     * Moves to the next sample of this shard: false at the end, else true with {@link #sample} and
     * {@link #lastIndex} set (a null sample is kept: the writer reports it with its index).
     */
    boolean nextSample() {
      if (carriedPos < carriedIn.size()) {
        lastIndex = carriedInIndex[carriedPos];
        sample = carriedIn.get(carriedPos++);
        return true;
      }
      Iterator<? extends S> source = java.util.Objects.requireNonNull(it, "the pass is not open");
      while (true) {
        S s;
        try {
          if (!source.hasNext()) {
            break;
          }
          s = source.next();
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

    /** Keeps {@link #sample} if it is among the pass's first {@code batchSize}, for PAD_WRAP. */
    void keepFirst() {
      if (first.size() < batchSize) {
        firstIndex[first.size()] = lastIndex;
        first.add(sample);
      }
    }

    /**
     * Reads past the samples of the pass's first {@code batches} batches, writing nothing. A state
     * saved after the last batch of its epoch (a partial one, delivered) leaves the pass ended.
     *
     * @throws IllegalArgumentException if the pass has fewer batches (its message names the range)
     */
    void skip(int batches) {
      long rows = (long) batches * batchSize;
      long read = 0;
      while (read < rows) {
        if (!nextSample()) {
          sourceEnded = true;
          break;
        }
        keepFirst();
        read++;
      }
      if (sourceEnded) {
        int total = (int) Math.min(Integer.MAX_VALUE, read);
        int count = LastBatchPolicy.cut(sampling.lastBatch(), total, batchSize).batches();
        if (batches > count) {
          throw new IllegalArgumentException("iteration state: position " + batches + " is out of range; epoch " + epoch
              + " has " + count + " batches, so the position must be in [0, " + count + "] (read again, its pass gave "
              + total + " samples of this part; a source that gives other samples than when the state was saved cannot "
              + "be resumed)");
        }
      }
      written = batches;
      delivered = batches;
    }

    /** The pass delivered its last batch: a state saved now belongs to the next epoch. */
    boolean over() {
      return sourceEnded && written == delivered;
    }

    void close() {
      Iterator<? extends S> i = it;
      if (i != null) {
        new CloseSource(i, name).run();
      }
    }
  }

  /** One pass over the source. */
  private final class Pass extends GuardedIterator<B> {
    final Cursor cursor;
    private boolean done;
    private @Nullable B pending;
    final Cleaner.Cleanable sourceCloser;

    Pass(long ticket, Cursor cursor) {
      super(guard, ticket);
      this.cursor = cursor;
      this.done = cursor.sourceEnded;
      this.sourceCloser = ThreadCleaner.register(this,
          new CloseSource(java.util.Objects.requireNonNull(cursor.it, "the pass is not open"), name));
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
      guard.lockWriting(ticket());
      try {
        pending = null;
        cursor.delivered++;
      } finally {
        guard.unlockWriting();
      }
      // The iteration stays current until the consumer moves on from its last batch (hasNext()).
      return java.util.Objects.requireNonNull(b);
    }

    /** Writes the next batch; null at the end. Under the write lock. */
    private @Nullable B write() {
      if (done) {
        return null;
      }
      Cursor c = cursor;
      BatchSlot<B> slot = output.ring().next();
      long[] idx = slot.sampleIndices();
      window.clear();
      int r = 0;
      while (r < batchSize && c.nextSample()) {
        window.add(c.sample);
        idx[r] = c.lastIndex;
        c.keepFirst();
        r++;
      }
      slot.begin(c.epoch, (long) c.written * batchSize);
      if (r > 0) {
        windowRows.write(identity, 0, r, slot);
      }
      if (r == batchSize) {
        c.written++;
        return slot.publish(r, 0);
      }
      done = true;
      c.sourceEnded = true;
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
            wrap[k] = (k - r) % c.first.size();
            idx[k] = c.firstIndex[wrap[k]];
          }
          writer.over(c.first).write(wrap, r, batchSize, slot);
          break;
        default:
          throw new AssertionError(cut.padding());
      }
      c.written++;
      return slot.publish(cut.lastRows(), cut.pad());
    }

    /** Closes the source iterator if it holds resources (a reader's threads, an open file). Idempotent. */
    void closeSource() {
      sourceCloser.clean();
    }
  }
}
