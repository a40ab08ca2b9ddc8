package dev.minibatch.runtime.internal.engine;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Buckets;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.spi.Seeds;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bucketed order plan (MXNet's {@code BucketSentenceIter}): every batch holds samples of one
 * bucket of similar lengths and carries the bucket's bound as its key ({@link
 * EpochPlan#bucketKey(int)}, MXNet's {@code bucket_key}).
 *
 * <p>Made from {@code (lengths, bounds, sampling)}: {@code lengths[i]} is sample {@code i}'s length
 * along the variable axis (already clamped by the caller), {@code bounds} the strictly increasing
 * bucket bounds ({@link Buckets#resolve(int[])}); sample {@code i} belongs to the smallest bucket
 * whose bound is {@code >= lengths[i]} ({@link Buckets#assign(int[], int[])}). Per epoch:
 *
 * <ol>
 *   <li><b>Shard first</b>, exactly as {@link SampleOrderPlan} ({@link ShardOrder}): the identity or,
 *       with shuffle, the permutation of {@code Seeds.derive(seed, epoch)}, and this part's block of
 *       it. So the parts of a sharded provider stay disjoint and covering, and which part a sample
 *       falls in does not depend on the buckets.
 *   <li><b>Group by bucket, keeping the part's order</b>: without shuffle each bucket holds its
 *       samples in ascending index; with shuffle, the part's permutation restricted to the bucket.
 *   <li><b>Cut every bucket</b> by {@link LastBatchPolicy#cut} under the sampling's policy, each
 *       bucket on its own: PARTIAL leaves a short last batch per bucket, DISCARD drops a bucket's
 *       leftovers, PAD_WRAP pads with the bucket's first samples of this epoch (tiled if the bucket
 *       is smaller than the padding), PAD_CONSTANT with {@link EpochPlan#CONSTANT_PAD} rows,
 *       ROLL_OVER carries a bucket's leftovers to the front of the same bucket in the next epoch,
 *       PAD_CONTINUE (MXNet's {@code round_batch}) pads with the first samples of the same bucket in
 *       the next epoch's order, which that epoch then skips. If that next bucket has fewer samples
 *       than the padding needs, they are tiled and the next epoch skips all of them; if it has none
 *       (possible only with shuffle and several parts, where a part's bucket sizes change from epoch
 *       to epoch) the padding wraps from this epoch's bucket, as PAD_WRAP, and nothing is skipped.
 *       A bucket without samples in an epoch has no batch.
 *   <li><b>Order the batches</b>: without shuffle, buckets by ascending bound and each bucket's
 *       batches in order; with shuffle, that list of batches permuted by a Fisher–Yates shuffle over
 *       a {@link SplittableRandom} seeded by {@code Seeds.derive(seed, epoch, }{@link
 *       #BATCH_ORDER}{@code )}. The plan is a pure function of (data lengths, bounds, settings,
 *       seed, epoch, carries), independent of threads and devices.
 * </ol>
 *
 * <p>Batch size 0 means each bucket's samples of the epoch form one batch (the analogue of
 * "the whole part as one batch"); {@link #batchSize()} then reports the part size, the most rows a
 * batch can have.
 *
 * <p><b>Iteration state.</b> {@link #saveState()} records the epoch, the batches delivered and the
 * samples carried into the epoch (ROLL_OVER's leftovers, PAD_CONTINUE's samples already delivered
 * as padding). Carries are per bucket, encoded in {@link IterationState#carried()} as groups
 * {@code [bucket, count, sample_1, ..., sample_count]}, one per bucket with a non-empty carry, by
 * ascending bucket index (the index into the bounds, from 0); for example {@code [0, 1, 5, 2, 2, 3,
 * 12]} carries sample 5 into bucket 0 and samples 3 and 12, in this order, into bucket 2. The
 * settings fingerprint includes the bounds and a hash of every sample's bucket, so a state from
 * another bucketing or other data is rejected.
 *
 * <p>Not thread-safe on its own: the engine calls it under its iteration guard.
 */
final class BucketOrderPlan extends CarryingPlan<int[][]> {
  /**
   * The last coordinate of the seed of the batch shuffle, {@code Seeds.derive(seed, epoch,
   * BATCH_ORDER)}: negative so it never meets the sample positions ({@code >= 0}) that per-sample
   * random streams use as their last coordinate after (seed, epoch), and not {@code -1}, which the
   * class draws use.
   */
  static final long BATCH_ORDER = -2;

  private static final int[] NONE = new int[0];

  private final int[] bounds;
  /** The bucket of every sample, an index into {@link #bounds}. */
  private final int[] bucketOf;
  private final Sampling sampling;
  private final ShardOrder parts;
  private final int batchSize;
  private final String fingerprint;


  /**
   * A scheduler over {@code lengths.length} samples.
   *
   * @param lengths every sample's length along the variable axis
   * @param bounds strictly increasing bucket bounds, each {@code >= 1} (see {@link Buckets#resolve})
   * @param sampling batch size, last-batch policy, shuffle, seed and shard
   * @throws IllegalArgumentException if there are no samples, this provider's part would be empty,
   *     the bounds are not valid, or a sample is longer than the largest bound (naming the sample,
   *     its length and the bound)
   */
  BucketOrderPlan(int[] lengths, int[] bounds, Sampling sampling) {
    // The carry, per bucket: ROLL_OVER, the samples carried to its front next epoch; PAD_CONTINUE,
    // its next epoch's first samples, already delivered as padding.
    super(sampling.seed(), new int[0][]);
    this.parts = new ShardOrder(lengths.length, sampling);
    this.bounds = bounds.clone();
    this.bucketOf = Buckets.assign(this.bounds, lengths);
    this.sampling = sampling;
    this.batchSize = sampling.batchRows(parts.shardSize());
    this.carry = emptyCarry();
    StringBuilder f = new StringBuilder("buckets=");
    for (int b = 0; b < this.bounds.length; b++) {
      f.append(b > 0 ? "/" : "").append(this.bounds[b]);
    }
    this.fingerprint = f.append(",assignment=").append(Integer.toHexString(Arrays.hashCode(bucketOf)))
        .append(",samples=").append(lengths.length).append(",batch=").append(sampling.batchSize())
        .append(',').append(orderSettings(sampling)).toString();
  }

  /** Rows of a full batch: the configured size, or the part size when it was 0 (one batch per bucket). */
  @Override
  public int batchSize() {
    return batchSize;
  }

  @Override
  public int shardSize() {
    return parts.shardSize();
  }

  /** The bucket bounds, ascending; batch keys are these values. */
  int[] bounds() {
    return bounds.clone();
  }

  /** Starts the next epoch (or resumes the restored one). */
  @Override
  public EpochPlan beginEpoch() {
    int epoch = nextEpoch;
    LastBatch policy = sampling.lastBatch();
    int nb = bounds.length;
    int[][] own = split(parts.order(seed, epoch, false));
    int[][] carriedIn = carry;
    int[][] carryOut = emptyCarry();
    // The next epoch's order split by bucket, made once, when a bucket first pads from it (PAD_CONTINUE).
    int[][][] next = new int[1][][];
    int[][] bucketStream = new int[nb][];
    int[] batchesOf = new int[nb];
    int[] sizeOf = new int[nb];
    int[] lastRowsOf = new int[nb];
    int[] lastPadOf = new int[nb];
    int batchCount = 0;
    for (int b = 0; b < nb; b++) {
      int[] in = carriedIn[b];
      // PAD_CONTINUE: the carried samples are this bucket's first ones, already delivered as padding.
      int skip = policy == LastBatch.PAD_CONTINUE ? in.length : 0;
      int[] head = policy == LastBatch.PAD_CONTINUE ? NONE : in;
      int total = head.length + own[b].length - skip;
      if (total == 0) {
        bucketStream[b] = NONE;
        continue;
      }
      int size = sampling.batchRows(total);
      LastBatchPolicy.Cut cut = LastBatchPolicy.cut(policy, total, size);
      int[] s = new int[total + cut.pad()];
      System.arraycopy(head, 0, s, 0, head.length);
      System.arraycopy(own[b], skip, s, head.length, own[b].length - skip);
      int bucket = b;
      carryOut[b] = LastBatchPolicy.finish(cut, s, total, own[b], () -> {
        if (next[0] == null) {
          next[0] = split(parts.order(seed, epoch + 1, true));
        }
        return next[0][bucket];
      });
      bucketStream[b] = s;
      batchesOf[b] = cut.batches();
      sizeOf[b] = size;
      lastRowsOf[b] = cut.lastRows();
      lastPadOf[b] = cut.pad();
      batchCount += cut.batches();
    }
    // Batch ids in bucket order: id -> (bucket, batch within the bucket).
    int[] idBucket = new int[batchCount];
    int[] idIndex = new int[batchCount];
    for (int b = 0, id = 0; b < nb; b++) {
      for (int t = 0; t < batchesOf[b]; t++, id++) {
        idBucket[id] = b;
        idIndex[id] = t;
      }
    }
    int[] order = new int[batchCount];
    for (int j = 0; j < batchCount; j++) {
      order[j] = j;
    }
    if (sampling.shuffle()) {
      Seeds.shuffle(order, 0, batchCount, Seeds.derive(seed, epoch, BATCH_ORDER));
    }
    int[] starts = new int[batchCount + 1];
    int[] pads = new int[batchCount];
    int[] keys = new int[batchCount];
    for (int j = 0; j < batchCount; j++) {
      int b = idBucket[order[j]];
      boolean last = idIndex[order[j]] == batchesOf[b] - 1;
      starts[j + 1] = starts[j] + (last ? lastRowsOf[b] : sizeOf[b]);
      pads[j] = last ? lastPadOf[b] : 0;
      keys[j] = bounds[b];
    }
    int[] stream = new int[starts[batchCount]];
    for (int j = 0; j < batchCount; j++) {
      int b = idBucket[order[j]];
      System.arraycopy(bucketStream[b], idIndex[order[j]] * sizeOf[b], stream, starts[j], starts[j + 1] - starts[j]);
    }
    int start = Math.min(resumePosition, batchCount);
    return began(EpochPlan.bucketed(seed, epoch, stream, encode(carriedIn), batchSize, starts, pads, keys, start), carryOut);
  }

  @Override
  int[][] noCarry() {
    return emptyCarry();
  }

  @Override
  String fingerprintCovers() {
    return "data, buckets or settings";
  }

  @Override
  int[][] decodeChecked(IterationState state) {
    return decode(state.carried());
  }

  /**
   * The batches of the restored epoch, bucket by bucket; rejects carries that are more than a
   * batch, are not the bucket's first samples of the epoch (PAD_CONTINUE) or exist under a policy
   * that carries nothing.
   */
  @Override
  int batchesOf(IterationState state, int[][] carried) {
    LastBatch policy = sampling.lastBatch();
    int[][] own = split(parts.order(state.seed(), state.epoch(), false));
    int batches = 0;
    for (int b = 0; b < bounds.length; b++) {
      int[] in = carried[b];
      if (in.length > 0 && !LastBatchPolicy.carries(policy)) {
        throw new IllegalArgumentException("iteration state: bucket " + b + " carries " + in.length
            + " samples, but lastBatch " + policy + " carries none");
      }
      if (in.length > 0 && (sampling.batchSize() == 0 || in.length >= sampling.batchSize())) {
        throw new IllegalArgumentException("iteration state: bucket " + b + " carries " + in.length
            + " samples; fewer than a batch (" + sampling.batchSize() + ") can be carried");
      }
      int total = own[b].length + in.length;
      if (policy == LastBatch.PAD_CONTINUE) {
        // The padding of the last epoch took this bucket's first samples, in order: skip exactly those.
        if (in.length > own[b].length || !Arrays.equals(in, 0, in.length, own[b], 0, in.length)) {
          throw new IllegalArgumentException("iteration state: bucket " + b + " carries " + Arrays.toString(in)
              + ", which are not its first samples of epoch " + state.epoch() + " in this part");
        }
        total = own[b].length - in.length;
      }
      if (total > 0) {
        batches += LastBatchPolicy.cut(policy, total, sampling.batchRows(total))
            .batches();
      }
    }
    return batches;
  }

  @Override
  String fingerprint() {
    return fingerprint;
  }

  /** The samples of {@code part} by bucket, each in the part's order. */
  private int[][] split(int[] part) {
    int[] counts = new int[bounds.length];
    for (int i : part) {
      counts[bucketOf[i]]++;
    }
    int[][] out = new int[bounds.length][];
    for (int b = 0; b < out.length; b++) {
      out[b] = new int[counts[b]];
      counts[b] = 0;
    }
    for (int i : part) {
      int b = bucketOf[i];
      out[b][counts[b]++] = i;
    }
    return out;
  }

  private int[][] emptyCarry() {
    int[][] c = new int[bounds.length][];
    Arrays.fill(c, NONE);
    return c;
  }

  /** Per-bucket carries as groups {@code [bucket, count, samples...]} for the non-empty ones. */
  @Override
  int[] encode(int[][] carried) {
    int n = 0;
    for (int[] c : carried) {
      n += c.length == 0 ? 0 : 2 + c.length;
    }
    int[] out = new int[n];
    int at = 0;
    for (int b = 0; b < carried.length; b++) {
      if (carried[b].length > 0) {
        out[at++] = b;
        out[at++] = carried[b].length;
        System.arraycopy(carried[b], 0, out, at, carried[b].length);
        at += carried[b].length;
      }
    }
    return out;
  }

  /** Reads {@link #encode}'s groups, checking their form and that every sample is in its bucket. */
  private int[][] decode(int[] flat) {
    int[][] out = emptyCarry();
    int previous = -1;
    int at = 0;
    while (at < flat.length) {
      if (at + 1 >= flat.length) {
        throw new IllegalArgumentException("iteration state: carried entries end inside a group at entry " + at
            + "; expected groups [bucket, count, samples...]");
      }
      int b = flat[at];
      int count = flat[at + 1];
      if (b <= previous || b >= bounds.length) {
        throw new IllegalArgumentException("iteration state: carried group at entry " + at + " names bucket " + b
            + "; buckets must be in [0, " + bounds.length + ") and ascending, each at most once");
      }
      if (count < 1 || count > flat.length - at - 2) {
        throw new IllegalArgumentException("iteration state: carried group of bucket " + b + " at entry " + at
            + " counts " + count + " samples, but " + (flat.length - at - 2) + " entries follow");
      }
      int[] samples = Arrays.copyOfRange(flat, at + 2, at + 2 + count);
      for (int s : samples) {
        if (s < 0 || s >= bucketOf.length) {
          throw new IllegalArgumentException("iteration state: carried sample " + s + " is outside [0, "
              + bucketOf.length + ")");
        }
        if (bucketOf[s] != b) {
          throw new IllegalArgumentException("iteration state: sample " + s + " is carried in bucket " + b
              + " (bound " + bounds[b] + ") but belongs to bucket " + bucketOf[s] + " (bound " + bounds[bucketOf[s]]
              + ")");
        }
      }
      out[b] = samples;
      previous = b;
      at += 2 + count;
    }
    return out;
  }
}
