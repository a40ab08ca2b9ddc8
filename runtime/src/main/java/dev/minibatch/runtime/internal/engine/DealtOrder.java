package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import org.jspecify.annotations.Nullable;

/**
 * The order plan of elastic parts ({@link Sampling#elasticShards()}): one global plan — the plan
 * a single provider over all samples would follow, with the same order, batch size and last-batch
 * policy — whose batches are dealt to the parts in turn. Part {@code p} of {@code k} gets global
 * batches {@code s + p}, {@code s + p + k}, {@code s + p + 2k}, … of each epoch, where {@code s} is
 * the number of global batches consumed before this epoch's dealing began (0, or a restored
 * state's); with {@code evenShards}, every part gets {@code ceil((M - s) / k)} batches of the
 * epoch's {@code M}, the last round topped up with global batches {@code 0, 1, …}.
 *
 * <p>The state it saves counts global batches: after {@code q} batches delivered here, {@code s +
 * q * k} (the epoch is over once that reaches {@code M}), which every part saved at the same step
 * agrees on, including a part that has no batch left in the last, short round. Its fingerprint is the global plan's,
 * which does not hold the part count, so it restores under any {@code k}: the epoch's remaining
 * global batches are dealt to the new parts.
 */
final class DealtOrder implements OrderPlan {
  private static final String MARK = "dealt,";

  private final OrderPlan global;
  private final int parts;
  private final int part;
  private final boolean even;
  private final int shardSize;
  // The epoch being dealt: where it started (its state at the start) and its dealt plan.
  private @Nullable IterationState epochStart;
  private @Nullable Dealt current;

  /**
   * Deals {@code global}'s batches under {@code sampling}'s part count and index.
   *
   * @param global a plan over the whole data set ({@link Sampling#global()})
   */
  DealtOrder(OrderPlan global, Sampling sampling) {
    this.global = global;
    this.parts = sampling.numParts();
    this.part = sampling.partIndex();
    this.even = sampling.evenShards();
    int batches = LastBatchPolicy.cut(sampling.lastBatch(), global.shardSize(), global.batchSize()).batches();
    this.shardSize = samplesDealt(global.shardSize(), batches, global.batchSize());
  }

  /**
   * The samples (not padding) this part gets in a fresh epoch over {@code total} samples cut into
   * {@code batches} global batches of {@code batchSize}: every global batch but the last holds
   * {@code batchSize}, the last what is left.
   */
  private int samplesDealt(int total, int batches, int batchSize) {
    long samples = 0;
    int rounds = (batches + parts - 1) / parts;
    for (int r = 0; r < rounds; r++) {
      long j = part + (long) r * parts;
      if (j >= batches && !even) {
        break;
      }
      int g = wrapped(j, batches);
      samples += g < batches - 1 ? batchSize : Math.min(batchSize, total - (long) (batches - 1) * batchSize);
    }
    return (int) Math.min(Integer.MAX_VALUE, samples);
  }

  /**
   * The global batch that dealt number {@code j} of an epoch of {@code m} batches is: {@code j}, or
   * past the end (evenShards' last round) {@code (j - m) mod m}.
   */
  private static int wrapped(long j, int m) {
    return (int) (j < m ? j : (j - m) % m);
  }

  @Override
  public int batchSize() {
    return global.batchSize();
  }

  @Override
  public int shardSize() {
    return shardSize;
  }

  @Override
  public long seed() {
    return global.seed();
  }

  @Override
  public EpochPlan beginEpoch() {
    IterationState at = global.saveState();
    EpochPlan g = global.beginEpoch();
    int m = g.batchCount();
    int s = g.position();
    // The global plan counts as handed out: its saved state is then the next epoch's start.
    for (int j = s; j < m; j++) {
      g.delivered();
    }
    // Rounds of k batches over what is left; without evenShards only the rounds' batches below M.
    int rounds = (m - s + parts - 1) / parts;
    int count = even ? rounds : (int) Math.max(0, (m - s - part + parts - 1L) / parts);
    this.epochStart = new IterationState(at.seed(), g.epoch(), 0, g.carriedIn(), at.settings());
    Dealt dealt = new Dealt(g, s, m, count);
    this.current = dealt;
    return dealt;
  }

  /**
   * This part's batches of one epoch of the global plan, read from the global plan's own stream
   * (a copy of the part's rows was 4 bytes a sample: 400 MB for 10^8 samples before the first
   * batch). Batch {@code b} is global batch {@code s + p + b * k} (wrapping under evenShards); its
   * rows keep their global epoch positions, so a row's per-sample draws and a shard reader's
   * place in the epoch's files do not depend on the part count. The global plan's stream is valid
   * until the next epoch begins, when this plan is superseded too. Bucket keys are not dealt: every
   * batch is {@link #NO_BUCKET}.
   */
  private final class Dealt extends EpochPlan {
    private final EpochPlan global;
    private final int start;
    private final int batches;

    Dealt(EpochPlan global, int start, int batches, int count) {
      super(global.seed(), global.epoch(), new int[0], global.carriedIn(), global.batchSize(), count, 0, 0, 0);
      this.global = global;
      this.start = start;
      this.batches = batches;
    }

    /** The global batch of this part's batch {@code b}. */
    private int globalBatch(int b) {
      checkBatch(b);
      return wrapped(start + part + (long) b * parts, batches);
    }

    @Override
    int rows(int b) {
      return global.rows(globalBatch(b));
    }

    @Override
    int pad(int b) {
      return global.pad(globalBatch(b));
    }

    @Override
    long firstPosition(int b) {
      return global.firstPosition(globalBatch(b));
    }

    @Override
    int sampleRows(int b) {
      return global.sampleRows(globalBatch(b));
    }

    @Override
    void indices(int b, int[] out) {
      global.indices(globalBatch(b), out);
    }

    @Override
    void mapSamples(SampleMap map) {
      throw new UnsupportedOperationException("a dealt plan reads the global plan's samples, mapped there");
    }
  }

  @Override
  public IterationState saveState() {
    Dealt c = current;
    IterationState e = epochStart;
    // A part that has run out of batches while the others have one more to go (no evenShards) still
    // reports the epoch in progress: the state must be the same on every part at the same step.
    long consumed = c == null ? 0 : c.start + (long) c.position() * parts;
    if (c != null && e != null && consumed < c.batches) {
      return new IterationState(e.seed(), c.epoch(), (int) consumed, e.carried(), MARK + e.settings());
    }
    IterationState s = global.saveState();
    return new IterationState(s.seed(), s.epoch(), s.position(), s.carried(), MARK + s.settings());
  }

  @Override
  public void restoreState(IterationState state) {
    if (!state.settings().startsWith(MARK)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved without elasticShards into a provider"
          + " with elasticShards (the state counts this part's batches, not the global ones):\n  saved:    "
          + state.settings() + "\n  this one: " + MARK + global.saveState().settings());
    }
    global.restoreState(new IterationState(state.seed(), state.epoch(), state.position(), state.carried(),
        state.settings().substring(MARK.length())));
    current = null;
  }

  @Override
  public void reset() {
    global.reset();
    current = null;
  }
}
