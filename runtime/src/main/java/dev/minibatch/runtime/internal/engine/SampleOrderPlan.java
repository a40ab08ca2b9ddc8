package dev.minibatch.runtime.internal.engine;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.spi.Seeds;
import java.util.SplittableRandom;

/**
 * Plans the epochs of a provider over {@code numSamples} samples addressed by index: the order
 * plan shared by every random-access provider.
 *
 * <p>Per epoch: {@link ShardOrder} gives the part's order — the identity, or with shuffle a
 * permutation drawn from (seed, epoch) alone (Fisher–Yates over a {@link SplittableRandom} seeded
 * by {@link Seeds#derive}); the part {@code partIndex} of {@code numParts} is the contiguous block
 * {@code [floor(p*n/k), floor((p+1)*n/k))} of that order (with {@code evenShards}, every part takes
 * {@code ceil(n/k)} samples, wrapping to the order's start); then {@link LastBatchPolicy} cuts
 * the part, after the samples carried in from the last epoch, into batches.
 *
 * <p>Not thread-safe on its own: the engine calls it under its iteration guard.
 */
final class SampleOrderPlan extends CarryingPlan<int[]> {
  private final int numSamples;
  private final Sampling sampling;
  private final int shardSize;
  private final int batchSize;
  private final ShardOrder parts;

  // Reused across epochs: a superseded plan is never read again (the engine's guard).
  private int[] streamBuffer = new int[0];

  /**
   * A scheduler for {@code numSamples} samples.
   *
   * @throws IllegalArgumentException if there are no samples, or this provider's part would be empty
   */
  SampleOrderPlan(int numSamples, Sampling sampling) {
    super(sampling.seed(), new int[0]);
    this.parts = new ShardOrder(numSamples, sampling);
    this.numSamples = numSamples;
    this.sampling = sampling;
    this.shardSize = parts.shardSize();
    this.batchSize = sampling.batchRows(shardSize);
    if (sampling.lastBatch() == LastBatch.PAD_CONTINUE && shardSize < batchSize) {
      // As MXNet's round_batch: the padding must come from one following epoch.
      throw new IllegalArgumentException("lastBatch PAD_CONTINUE needs at least one batch of samples per shard: shard "
          + sampling.partIndex() + " of " + sampling.numParts() + " has " + shardSize + " samples, the batch size is "
          + batchSize + "; use a batch size of at most " + shardSize + ", or another lastBatch policy (PAD_CONSTANT pads"
          + " the last batch with constants)");
    }
  }

  int numSamples() {
    return numSamples;
  }

  @Override
  public int shardSize() {
    return shardSize;
  }

  /** Rows per full batch: the configured size, or the part size when it was 0. */
  @Override
  public int batchSize() {
    return batchSize;
  }

  /** The samples carried into the next epoch (ROLL_OVER: to its front; PAD_CONTINUE: already delivered). */
  int nextCarryLength() {
    return carry.length;
  }

  /** The epoch {@link #beginEpoch()} starts next. */
  int nextEpoch() {
    return nextEpoch;
  }

  Sampling sampling() {
    return sampling;
  }

  /** Starts the next epoch (or resumes the restored one). */
  @Override
  public EpochPlan beginEpoch() {
    return beginEpoch(partOrder(nextEpoch, false));
  }

  /**
   * Starts the next epoch over {@code part}, the caller's order of this part's samples in that epoch
   * in place of {@link ShardOrder}'s, which it must equal after a mapping applied to every entry
   * alike: a drawn order of one part hands its draws, which its own positions {@code [0, n)} mapped
   * through the draws would give. So only where nothing is carried between epochs ({@link
   * LastBatchPolicy#carries}: a carry holds the order's own entries, not mapped ones).
   */
  EpochPlan beginEpoch(int[] part) {
    int epoch = nextEpoch;
    int[] carriedIn = carry;
    LastBatch policy = sampling.lastBatch();
    // PAD_CONTINUE: the carried samples are this epoch's first ones, already delivered as padding.
    int skip = policy == LastBatch.PAD_CONTINUE ? carriedIn.length : 0;
    int[] head = policy == LastBatch.PAD_CONTINUE ? new int[0] : carriedIn;
    int total = epochTotal(carriedIn.length);
    LastBatchPolicy.Cut cut = LastBatchPolicy.cut(policy, total, batchSize);
    int[] stream = stream(head, part, skip, cut.pad());
    // The next epoch's order, computed now under PAD_CONTINUE: its first samples pad this batch.
    int[] carryOut = LastBatchPolicy.finish(cut, stream, total, part, () -> partOrder(epoch + 1, true));
    int start = Math.min(resumePosition, cut.batches());
    return began(new EpochPlan(seed, epoch, stream, carriedIn, batchSize, cut.batches(), cut.lastRows(), cut.pad(), start),
        carryOut);
  }

  /**
   * The samples an epoch cuts into batches, given the samples carried into it: they come first
   * (ROLL_OVER), or were already delivered as the last epoch's padding and are skipped
   * (PAD_CONTINUE).
   */
  private int epochTotal(int carried) {
    return sampling.lastBatch() == LastBatch.PAD_CONTINUE ? shardSize - carried : shardSize + carried;
  }

  @Override
  int[] noCarry() {
    return new int[0];
  }

  @Override
  int[] encode(int[] carry) {
    return carry;
  }

  @Override
  String fingerprintCovers() {
    return "data or settings";
  }

  @Override
  int[] decodeChecked(IterationState state) {
    int[] carried = state.carried();
    for (int i : carried) {
      if (i < 0 || i >= numSamples) {
        throw new IllegalArgumentException("iteration state: carried sample " + i + " is outside [0, " + numSamples + ")");
      }
    }
    if (carried.length > Math.max(batchSize, shardSize)) {
      throw new IllegalArgumentException("iteration state: " + carried.length + " carried samples; at most "
          + Math.max(batchSize, shardSize) + " can be carried with batch size " + batchSize);
    }
    return carried;
  }

  @Override
  int batchesOf(IterationState state, int[] carried) {
    return LastBatchPolicy.cut(sampling.lastBatch(), epochTotal(carried.length), batchSize).batches();
  }

  /**
   * The order of this part's samples in {@code epoch}, before the last-batch policy ({@link
   * ShardOrder}); {@code second} selects the buffer for a look-ahead epoch so the current one stays
   * intact.
   */
  int[] partOrder(int epoch, boolean second) {
    return parts.order(seed, epoch, second);
  }

  @Override
  String fingerprint() {
    return "samples=" + numSamples + ",batch=" + batchSize + "," + orderSettings(sampling);
  }

  /**
   * {@code head}, then {@code part} from {@code skip} on, then room for {@code pad} more: {@code
   * part} itself when there is nothing to add (no copy of an epoch's order: 400 MB for 10^8
   * samples, see ShardOrder for why it may be).
   */
  private int[] stream(int[] head, int[] part, int skip, int pad) {
    if (head.length == 0 && skip == 0 && pad == 0) {
      return part;
    }
    int need = head.length + part.length - skip + pad;
    if (streamBuffer.length < need) {
      streamBuffer = new int[need];
    }
    int[] out = streamBuffer;
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(part, skip, out, head.length, part.length - skip);
    return out;
  }
}
