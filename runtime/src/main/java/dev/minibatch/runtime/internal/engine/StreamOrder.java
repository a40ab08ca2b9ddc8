package dev.minibatch.runtime.internal.engine;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.ProviderBuilder.BadSamples.Action;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The order plan of a streaming source (generated providers over an {@link Iterable}, {@code
 * FeedingProvider} over a reader): every epoch is one pass of the source ({@link Passes#open}), in
 * its order, sample {@code i} of the pass going to shard {@code i % numParts}. Its epochs are cut as
 * they are read, one batch at a time ({@link EpochPlan#hasBatch}), and {@link LastBatchPolicy} cuts
 * the tail when the pass ends; no shuffle, which needs random access. The batch being written is held
 * as sample objects in one window, which the row writer reads by position ({@link #window()}).
 *
 * <p>Resume is by replay: a state holds the epoch, the batches delivered of it and the source
 * positions of the samples ROLL_OVER carried into it. {@link #restoreState} opens the source's pass
 * for that epoch again and reads past the samples of the delivered batches without writing them
 * (and, with a carry, reads the epoch before to its end to take the carried samples again), so the
 * next epoch continues where the saved one stood. The source must give the same samples in the same
 * order whenever an epoch's pass is opened; one that visibly does not (it hands back an iterator it
 * gave before, refuses a second pass, or ends elsewhere) is refused.
 *
 * <p>Not thread-safe on its own: the engine calls it under its iteration guard's write lock.
 *
 * @param <S> the sample type
 */
final class StreamOrder<S> implements OrderPlan {
  private final String name;
  private final Passes<? extends S> source;
  private final Sampling sampling;
  private final int batchSize;
  /** The samples of the batch being written, then its wrapped padding, by row; what the row writer reads. */
  private final List<S> window;
  /** The source position of each window entry, for {@link BatchSlot#sampleIndices()}. */
  private final long[] windowIndex;
  private final int[] identity;
  /** The settings' seed, or a restored state's. */
  private long seed;

  /** The epoch the next pass reads. */
  private int nextEpoch;
  /** ROLL_OVER: the samples carried into the next pass, and their source positions. */
  private final List<S> carried = new ArrayList<>();
  private long[] carriedIndex = new long[0];
  /** The latest pass, or null before the first and after a restore or reset. */
  private @Nullable Pass current;
  /** A restored epoch read up to its position, for the next epoch; and its state. */
  private @Nullable Pass prepared;
  private @Nullable IterationState restored;

  /**
   * @throws IllegalArgumentException for batch size 0, shuffle, evenShards, elasticShards,
   *     PAD_CONTINUE (they need a random-access source) or a bad-sample policy other than fail
   */
  StreamOrder(String name, Passes<? extends S> source, Sampling sampling) {
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
    Settings.Workers workers = sampling.workers();
    if (workers.readers() != 0 || workers.autotune() != null) {
      // Reader threads write batches ahead by position; a stream's batches are known only as it is
      // read, so the setting is refused rather than dropped.
      String set = workers.autotune() != null ? "autotune" : "readers(" + workers.readers() + ")";
      throw new IllegalArgumentException(name + ": " + set + " writes a random-access source's batches ahead of the"
          + " consumer on reader threads; a streaming source is read on the consumer's thread: leave it unset, wrap"
          + " the provider in PrefetchingProvider, or pass a List");
    }
    if (sampling.badSamples().action() != Action.FAIL) {
      // A skipped or replaced sample needs another sample by index, and a budget of a known size.
      throw new IllegalArgumentException(name + ": badSamples(" + sampling.badSamples() + ") needs a random-access "
          + "source; a streaming source reads each sample once, so a bad sample fails the pass; pass a List");
    }
    this.name = name;
    this.source = source;
    this.sampling = sampling;
    this.batchSize = sampling.batchSize();
    this.seed = sampling.seed();
    this.window = new ArrayList<>(batchSize);
    this.windowIndex = new long[batchSize];
    this.identity = new int[batchSize];
    for (int i = 0; i < batchSize; i++) {
      identity[i] = i;
    }
  }

  /** The samples the row writer reads: entry {@code e} of a batch's indices is {@code window().get(e)}. */
  List<S> window() {
    return window;
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  /** Unknown until a pass ends: -1. */
  @Override
  public int shardSize() {
    return -1;
  }

  /**
   * The settings' seed, or the one of the state restored last (a stream is never shuffled; the seed
   * is reported and carried down with its batches).
   */
  @Override
  public long seed() {
    return seed;
  }

  /**
   * Opens the next epoch's pass, or hands over the restored one. When the source cannot be opened
   * (a file briefly unreadable), the epoch and its carry stay where they were, for the next try.
   */
  @Override
  public EpochPlan beginEpoch() {
    Pass c = prepared;
    if (c == null) {
      c = new Pass(nextEpoch, new ArrayList<>(carried), carriedIndex);
    }
    if (c.it == null) {
      c.open();
    }
    prepared = null;
    restored = null;
    nextEpoch = c.epoch() + 1;
    carried.clear();
    carriedIndex = new long[0];
    current = c;
    return c;
  }

  /**
   * Where iteration stands: the epoch of the latest pass and the batches delivered of it, or, once
   * that pass has delivered its last batch, the next epoch and the samples carried into it.
   */
  @Override
  public IterationState saveState() {
    IterationState r = restored;
    if (r != null) {
      return r;
    }
    Pass p = current;
    if (p != null && !p.over()) {
      return state(p.epoch(), p.position(), p.carriedInIndex);
    }
    return state(nextEpoch, 0, carriedIndex);
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
    return new IterationState(seed, epoch, position, c, fingerprint());
  }

  /** What a state must match: a stream (not a random-access source) cut and sharded the same way. */
  private String fingerprint() {
    return "stream,batch=" + batchSize + ",lastBatch=" + sampling.lastBatch() + ",parts=" + sampling.numParts()
        + ",part=" + sampling.partIndex();
  }

  /**
   * Continues from {@code state} at the next epoch, replaying the source now: its pass of the
   * state's epoch is read past the delivered batches (and with carried samples, the pass before it
   * to its end), without writing them.
   *
   * @throws IllegalArgumentException if the state belongs to other settings or another kind of
   *     provider, or its position lies beyond its epoch
   * @throws IllegalStateException if the source cannot be replayed: it hands back an iterator it
   *     gave before, refuses to start the pass again, or gives other samples than when the state
   *     was saved
   */
  @Override
  public void restoreState(IterationState state) {
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
    Pass replayed = replay(state);
    seed = state.seed();
    Pass old = prepared;
    prepared = replayed;
    restored = state;
    current = null;
    nextEpoch = state.epoch();
    carried.clear();
    carriedIndex = new long[0];
    if (old != null) {
      old.closeSource();
    }
  }

  /** The pass of {@code state}'s epoch, read up to its position (see {@link #restoreState}). */
  private Pass replay(IterationState state) {
    List<Iterator<?>> earlier = new ArrayList<>();
    // A one-shot source hands back the iterator it gave before: none of these may come back.
    if (current != null && current.it != null) {
      earlier.add(current.it);
    }
    if (prepared != null && prepared.it != null) {
      earlier.add(prepared.it);
    }
    int[] c = state.carried();
    List<S> carriedIn = new ArrayList<>(c.length);
    long[] carriedInIndex = new long[c.length];
    if (c.length > 0) {
      // The carried samples are the last of this part in the epoch before: read it to its end,
      // keeping the last c.length in a ring.
      Pass previous = new Pass(state.epoch() - 1, new ArrayList<>(), new long[0]);
      previous.open(earlier);
      earlier.add(Objects.requireNonNull(previous.it));
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
        previous.closeSource();
      }
    }
    Pass pass = new Pass(state.epoch(), carriedIn, carriedInIndex);
    pass.open(earlier);
    try {
      pass.skip(state.position());
    } catch (RuntimeException | Error e) {
      pass.closeSource();
      throw e;
    }
    return pass;
  }

  private IllegalStateException notReplayable(String why, @Nullable Throwable cause) {
    return new IllegalStateException(name + ": cannot resume: the source cannot be replayed (" + why + "). Resume reads "
        + "the epoch's pass again from its start, so every pass of an epoch must give the same samples in the same "
        + "order: use a Reader or an Iterable whose every iterator() starts again from the beginning (a List, "
        + "Readers.from(list), Readers.lines(path), a seeded reader.shuffle), or a List source, which resumes without "
        + "reading", cause);
  }

  /** Forgets the samples carried over by ROLL_OVER, and a restored epoch (the next pass starts its epoch afresh). */
  @Override
  public void reset() {
    carried.clear();
    carriedIndex = new long[0];
    current = null;
    restored = null;
    dropPrepared();
  }

  /** Closes the source of a restored epoch no iteration took. */
  @Override
  public void close() {
    dropPrepared();
  }

  private void dropPrepared() {
    Pass old = prepared;
    prepared = null;
    if (old != null) {
      old.closeSource();
    }
  }

  /**
   * Closes a pass's source iterator once (at the pass's end, or from the guard or the cleaner when
   * its iteration is closed, superseded or dropped); holds no reference to the pass or its iterator.
   */
  private static final class SourceCloser implements Runnable {
    private final Iterator<?> it;
    private final String name;
    private final AtomicBoolean closed = new AtomicBoolean();

    SourceCloser(Iterator<?> it, String name) {
      this.it = it;
      this.name = name;
    }

    @Override
    public void run() {
      if (it instanceof AutoCloseable c && closed.compareAndSet(false, true)) {
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
   * One pass of the source as an epoch: where it stands in the source (the samples of this part read
   * so far, after those carried in), the pass's first samples (for PAD_WRAP), and the batch cut last,
   * whose samples are in the window. What a restore replays and an iteration then continues.
   */
  private final class Pass extends EpochPlan {
    @Nullable Iterator<? extends S> it;
    private @Nullable SourceCloser closer;
    private final int numParts = sampling.numParts();
    private final int partIndex = sampling.partIndex();
    /** The pass's first samples, for PAD_WRAP. */
    private final List<S> first = new ArrayList<>();
    private final long[] firstIndex = new long[batchSize];
    final List<S> carriedIn;
    final long[] carriedInIndex;
    private int carriedPos;
    /** The source position of the last sample read, of any part. */
    private long read = -1;
    long lastIndex;
    @Nullable S sample;
    /** Batches cut (or read past by a replay); the last one cut is in the window. */
    private int cut;
    private int rows;
    private int pad;
    private boolean constantPad;
    /** Whether the source's end was reached. */
    private boolean sourceEnded;

    Pass(int epoch, List<S> carriedIn, long[] carriedInIndex) {
      super(seed, epoch, new int[0], new int[0], batchSize, 0, 0, 0, 0);
      this.carriedIn = carriedIn;
      this.carriedInIndex = carriedInIndex;
    }

    /** Opens the source's pass of this epoch, for a new pass. */
    void open() {
      opened(source.open(epoch()));
    }

    /**
     * Opens the source's pass of this epoch again, for a replay: {@code earlier}, the iterators of
     * passes opened before, must not come back.
     */
    void open(List<Iterator<?>> earlier) {
      Iterator<? extends S> o;
      try {
        o = source.open(epoch());
      } catch (IllegalStateException e) {
        // What a one-shot source (a Stream's iterator, asked twice) throws.
        throw notReplayable("it refused to start epoch " + epoch() + " again: " + e.getMessage(), e);
      }
      for (Iterator<?> e : earlier) {
        if (o == e) {
          throw notReplayable("it handed back the iterator of an earlier pass instead of starting epoch " + epoch()
              + " again", null);
        }
      }
      opened(o);
    }

    private void opened(Iterator<? extends S> o) {
      it = o;
      closer = new SourceCloser(o, name);
    }

    @Override
    @Nullable Runnable closer() {
      return closer;
    }

    void closeSource() {
      SourceCloser c = closer;
      if (c != null) {
        c.run();
      }
    }

    @Override
    boolean streamed() {
      return true;
    }

    @Override
    int batchCount() {
      return cut;
    }

    /** Batch {@code j} is the one cut last, or the next, which is read from the source now. */
    @Override
    boolean hasBatch(int j) {
      if (j < cut) {
        return true;
      }
      return !sourceEnded && cutNext();
    }

    /**
     * Reads the next batch's samples into the window, and at the source's end applies the
     * last-batch policy to them (the carry of ROLL_OVER goes to the next epoch); false if no batch
     * is left.
     */
    private boolean cutNext() {
      window.clear();
      int r = 0;
      while (r < batchSize && nextSample()) {
        window.add(sample);
        windowIndex[r] = lastIndex;
        keepFirst();
        r++;
      }
      if (r == batchSize) {
        batch(r, 0, false);
        return true;
      }
      sourceEnded = true;
      LastBatchPolicy.Cut c = LastBatchPolicy.cut(sampling.lastBatch(), r, batchSize);
      if (c.carry() > 0) {
        carried.addAll(window);
        carriedIndex = Arrays.copyOf(windowIndex, r);
      }
      if (c.batches() == 0) {
        return false;
      }
      switch (c.padding()) {
        case NONE:
        case CONSTANT:
          break;
        case WRAP:
          for (int k = r; k < batchSize; k++) {
            int w = (k - r) % first.size();
            window.add(first.get(w));
            windowIndex[k] = firstIndex[w];
          }
          break;
        default:
          throw new AssertionError(c.padding());
      }
      batch(c.lastRows(), c.pad(), c.padding() == LastBatchPolicy.Padding.CONSTANT);
      return true;
    }

    private void batch(int rowCount, int padRows, boolean constant) {
      rows = rowCount;
      pad = padRows;
      constantPad = constant;
      cut++;
    }

    /** Once the last batch is delivered, the source is not needed: stop its threads now, not at the next call. */
    @Override
    void delivered() {
      super.delivered();
      if (sourceEnded && position() == cut) {
        closeSource();
      }
    }

    @Override
    int rows(int j) {
      checkCut(j);
      return rows;
    }

    @Override
    int pad(int j) {
      checkCut(j);
      return pad;
    }

    @Override
    int sampleRows(int j) {
      checkCut(j);
      return constantPad ? rows - pad : rows;
    }

    @Override
    long firstPosition(int j) {
      return (long) j * batchSize;
    }

    @Override
    int bucketKey(int j) {
      return NO_BUCKET;
    }

    @Override
    void indices(int j, int[] out) {
      checkCut(j);
      System.arraycopy(identity, 0, out, 0, rows);
      if (constantPad) {
        Arrays.fill(out, rows - pad, rows, CONSTANT_PAD);
      }
    }

    @Override
    long[] sourceIndices() {
      return windowIndex;
    }

    private void checkCut(int j) {
      if (j != cut - 1) {
        throw new IndexOutOfBoundsException("batch " + j + " of a streaming epoch whose window holds batch " + (cut - 1));
      }
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
      Iterator<? extends S> src = Objects.requireNonNull(it, "the pass is not open");
      while (true) {
        S s;
        try {
          if (!src.hasNext()) {
            break;
          }
          s = src.next();
        } catch (RuntimeException e) {
          // The source's own failure, named like every stage failure (a reader's stages name themselves).
          throw StageFailedException.of("source", read + 1, e);
        }
        read++;
        if (numParts == 1 || read % numParts == partIndex) {
          lastIndex = read;
          sample = s;
          return true;
        }
      }
      return false;
    }

    /** Keeps {@link #sample} if it is among the pass's first {@code batchSize}, for PAD_WRAP. */
    private void keepFirst() {
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
      long rowsToSkip = (long) batches * batchSize;
      long skipped = 0;
      while (skipped < rowsToSkip) {
        if (!nextSample()) {
          sourceEnded = true;
          break;
        }
        keepFirst();
        skipped++;
      }
      if (sourceEnded) {
        int total = (int) Math.min(Integer.MAX_VALUE, skipped);
        int count = LastBatchPolicy.cut(sampling.lastBatch(), total, batchSize).batches();
        if (batches > count) {
          throw new IllegalArgumentException("iteration state: position " + batches + " is out of range; epoch "
              + epoch() + " has " + count + " batches, so the position must be in [0, " + count + "] (read again, its "
              + "pass gave " + total + " samples of this part; a source that gives other samples than when the state "
              + "was saved cannot be resumed)");
        }
      }
      cut = batches;
      seek(batches);
    }

    /** The pass delivered its last batch: a state saved now belongs to the next epoch. */
    boolean over() {
      return sourceEnded && cut == position();
    }

    @Override
    public String toString() {
      return "stream epoch " + epoch() + ": " + cut + " batches cut, " + position() + " delivered";
    }
  }
}
