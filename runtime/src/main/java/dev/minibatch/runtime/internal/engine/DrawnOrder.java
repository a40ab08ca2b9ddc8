package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import org.jspecify.annotations.Nullable;

/**
 * The order plan of a provider that draws its samples itself ({@link EpochDraws}): a {@link
 * SampleOrderPlan} over the positions {@code [0, draws.length())} of each epoch's drawn order,
 * unshuffled (the draws are already random), sharded into contiguous parts of those positions and
 * cut by the last-batch policy like every other order; positions then become sample indices. So
 * PAD_WRAP wraps to the start of the part's draws, PAD_CONSTANT pads with {@code -1}, ROLL_OVER
 * carries the leftover draws of one epoch to the front of the next, and PAD_CONTINUE pads with the
 * next epoch's first draws.
 */
final class DrawnOrder implements OrderPlan {
  private static final String PREFIX = "draws=" ;

  private EpochDraws draws;
  private final SampleOrderPlan positions;
  private final Sampling sampling;
  // Whether the provider shuffles: its draws do (a shuffled global order, shuffled classes), the
  // positions over them never are. The state says the former.
  private final boolean shuffled;
  private final int numSamples;
  /** The draws of the last two epochs computed, by epoch (arrays are never written once made). */
  private int epochA = Integer.MIN_VALUE;
  private int @Nullable [] drawsA;
  private int epochB = Integer.MIN_VALUE;
  private int @Nullable [] drawsB;
  private int epochC = Integer.MIN_VALUE;
  private int @Nullable [] drawsC;

  /**
   * @throws IllegalArgumentException for ROLL_OVER when a part has fewer draws than a batch (the
   *     carried draws would span several epochs)
   */
  DrawnOrder(EpochDraws draws, Sampling sampling, int numSamples) {
    this.draws = draws;
    this.numSamples = numSamples;
    this.shuffled = sampling.shuffle();
    this.sampling = sampling.withOrder(false, draws.seed());
    this.positions = new SampleOrderPlan(draws.length(), this.sampling);
    if (sampling.lastBatch() == LastBatch.ROLL_OVER && positions.shardSize() < positions.batchSize()) {
      throw new IllegalArgumentException("lastBatch ROLL_OVER with drawn samples needs at least one batch of draws "
          + "per shard: shard " + sampling.partIndex() + " of " + sampling.numParts() + " has " + positions.shardSize()
          + " draws per epoch, the batch size is " + positions.batchSize());
    }
  }

  @Override
  public int batchSize() {
    return positions.batchSize();
  }

  @Override
  public int shardSize() {
    return positions.shardSize();
  }

  @Override
  public long seed() {
    return draws.seed();
  }

  @Override
  public EpochPlan beginEpoch() {
    int epoch = positions.nextEpoch();
    LastBatch policy = sampling.lastBatch();
    if (sampling.numParts() == 1 && !LastBatchPolicy.carries(policy)) {
      // The positions are [0, n) in order and nothing is carried between epochs: mapped through the
      // draws they are the draws themselves, so the epoch is planned over the draws (no array of n
      // positions filled and mapped: 400 MB and a fifth of a second for 10^8 samples; elastic parts
      // read this one global plan). The draws are never written once made; a padded epoch copies them.
      return positions.beginEpoch(drawsOf(epoch));
    }
    boolean rollOver = policy == LastBatch.ROLL_OVER;
    int head = rollOver ? positions.nextCarryLength() : 0;
    EpochPlan plan = positions.beginEpoch();
    int[] previous = head > 0 ? drawsOf(epoch - 1) : null;
    int[] current = drawsOf(epoch);
    int[] next = policy == LastBatch.PAD_CONTINUE ? drawsOf(epoch + 1) : null;
    plan.mapSamples((at, position, tail) -> {
      if (at < head) {
        return previous[position];
      }
      return tail && next != null ? next[position] : current[position];
    });
    return plan;
  }

  @Override
  public IterationState saveState() {
    IterationState s = positions.saveState();
    return new IterationState(s.seed(), s.epoch(), s.position(), s.carried(), PREFIX + fingerprint() + ","
        + s.settings().replace(UNSHUFFLED_POSITIONS, ",shuffle=" + shuffled + ","));
  }

  /** How the positions plan's settings say it does not shuffle (CarryingPlan.orderSettings). */
  private static final String UNSHUFFLED_POSITIONS = ",shuffle=false,";

  @Override
  public void restoreState(IterationState state) {
    String prefix = PREFIX + fingerprint() + ",";
    if (!state.settings().startsWith(prefix)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other draws or settings:\n"
          + "  saved:    seed=" + state.seed() + ";" + state.settings() + "\n  this one: seed=" + draws.seed() + ";"
          + prefix + "…");
    }
    String own = state.settings().substring(prefix.length());
    String saidShuffle = ",shuffle=" + shuffled + ",";
    if (!own.contains(saidShuffle)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other draws or settings:\n"
          + "  saved:    seed=" + state.seed() + ";" + state.settings() + "\n  this one: seed=" + draws.seed() + ";"
          + prefix + "…" + saidShuffle.substring(1, saidShuffle.length() - 1) + "…");
    }
    positions.restoreState(new IterationState(state.seed(), state.epoch(), state.position(), state.carried(),
        own.replace(saidShuffle, UNSHUFFLED_POSITIONS)));
    if (state.seed() != draws.seed()) {
      // The state's seed is taken, as by every plan: the draws from here on are those it was saved with.
      draws = draws.reseeded(state.seed());
      epochA = epochB = epochC = Integer.MIN_VALUE;
      drawsA = drawsB = drawsC = null;
    }
  }

  @Override
  public void reset() {
    positions.reset();
  }

  /**
   * The sample indices of this part of epoch {@code epoch}'s draws, in order, before the last-batch
   * policy. Independent of the iteration.
   */
  int[] part(int epoch) {
    SampleOrderPlan whole = new SampleOrderPlan(draws.length(), sampling.withOrder(false, draws.seed()).withBatch(0, LastBatch.PARTIAL));
    whole.restoreState(new IterationState(draws.seed(), epoch, 0, new int[0], whole.fingerprint()));
    EpochPlan plan = whole.beginEpoch();
    int[] out = new int[plan.rows(0)];
    plan.indices(0, out);
    int[] d = new int[draws.length()];
    draws.fill(epoch, d);
    for (int i = 0; i < out.length; i++) {
      out[i] = d[out[i]];
    }
    return out;
  }

  private String fingerprint() {
    String d = draws.describe();
    return "drawn(" + numSamples + " samples" + (d.isEmpty() ? "" : " " + d) + ")";
  }

  /** The drawn order of {@code epoch}, from a cache of the last three epochs' orders. */
  private int[] drawsOf(int epoch) {
    if (drawsA != null && epochA == epoch) {
      return drawsA;
    }
    if (drawsB != null && epochB == epoch) {
      return drawsB;
    }
    if (drawsC != null && epochC == epoch) {
      return drawsC;
    }
    int[] d = new int[draws.length()];
    draws.fill(epoch, d);
    epochC = epochB;
    drawsC = drawsB;
    epochB = epochA;
    drawsB = drawsA;
    epochA = epoch;
    drawsA = d;
    return d;
  }
}
