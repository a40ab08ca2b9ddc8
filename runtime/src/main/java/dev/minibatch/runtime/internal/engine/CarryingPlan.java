package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import org.jspecify.annotations.Nullable;

/**
 * The one resume encoding of the order plans that cut a shard into batches themselves ({@link
 * SampleOrderPlan}, {@link BucketOrderPlan}): where iteration stands (the epoch in progress and its
 * delivered batches, or the next epoch and the position to resume it at), the samples carried into
 * the next epoch, the seed, and a fingerprint of the data and settings that a restored state must
 * match. A plan says how its carry is encoded in {@link IterationState#carried()}, checked on
 * restore, and how many batches the restored epoch has; the rest is here.
 *
 * @param <C> the carry: the samples one epoch hands to the next (ROLL_OVER: to its front;
 *     PAD_CONTINUE: its first samples, already delivered as padding)
 */
abstract class CarryingPlan<C> implements OrderPlan {
  long seed;
  @Nullable EpochPlan current;
  int nextEpoch;
  C carry;
  int resumePosition;

  CarryingPlan(long seed, C noCarry) {
    this.seed = seed;
    this.carry = noCarry;
  }

  /** The fingerprint of the data and settings; a state restores only into a plan with the same one. */
  abstract String fingerprint();

  /** What a differing fingerprint may mean, for the message: "data or settings", say. */
  abstract String fingerprintCovers();

  /** No carry: what {@link #reset()} leaves. */
  abstract C noCarry();

  /** {@code carry} as {@link IterationState#carried()} holds it. */
  abstract int[] encode(C carry);

  /**
   * The carry of {@code state}, checked against this plan (samples in range, no more than can be
   * carried, allowed by the policy).
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  abstract C decodeChecked(IterationState state);

  /** The batches of {@code state}'s epoch when it starts with {@code carried}. */
  abstract int batchesOf(IterationState state, C carried);

  /** Makes {@code plan} the epoch in progress, hands {@code carryOut} to the next, and returns it. */
  final EpochPlan began(EpochPlan plan, C carryOut) {
    current = plan;
    nextEpoch = plan.epoch() + 1;
    carry = carryOut;
    resumePosition = 0;
    return plan;
  }

  @Override
  public final long seed() {
    return seed;
  }

  /**
   * Where iteration stands: the epoch in progress and its delivered batches, or, between epochs,
   * the next epoch at the position a restored state resumes it at.
   */
  @Override
  public final IterationState saveState() {
    EpochPlan c = current;
    if (c != null && c.position() < c.batchCount()) {
      return new IterationState(seed, c.epoch(), c.position(), c.carriedIn(), fingerprint());
    }
    return new IterationState(seed, nextEpoch, resumePosition, encode(carry), fingerprint());
  }

  /**
   * Makes the next {@link #beginEpoch()} continue from {@code state}.
   *
   * @throws IllegalArgumentException if the state belongs to other data or settings (the message
   *     shows both fingerprints), its carry does not fit this plan, or its position lies beyond its
   *     epoch
   */
  @Override
  public final void restoreState(IterationState state) {
    String fingerprint = fingerprint();
    if (!state.settings().equals(fingerprint)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other " + fingerprintCovers()
          + ":\n  saved:    " + state.settings() + "\n  this one: " + fingerprint);
    }
    C carried = decodeChecked(state);
    OrderPlan.checkPosition(state, batchesOf(state, carried));
    seed = state.seed();
    current = null;
    nextEpoch = state.epoch();
    carry = carried;
    resumePosition = state.position();
  }

  /**
   * Forgets the samples carried over (MXNet NDArrayIter's {@code hard_reset}); the epoch counter
   * goes on.
   */
  @Override
  public final void reset() {
    current = null;
    carry = noCarry();
    resumePosition = 0;
  }

  /** The fingerprint's part that every plan shares: how a shard is ordered and cut. */
  static String orderSettings(Sampling sampling) {
    return "lastBatch=" + sampling.lastBatch() + ",shuffle=" + sampling.shuffle() + ",parts=" + sampling.numParts()
        + ",part=" + sampling.partIndex() + ",even=" + sampling.evenShards();
  }
}
