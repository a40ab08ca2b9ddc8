package dev.minibatch.runtime.sampling;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Sampling;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Plans the epochs of a provider over {@code numSamples} samples addressed by index.
 *
 * <p>Per epoch: the order is the identity, or with shuffle a permutation drawn from (seed, epoch)
 * alone (Fisher–Yates over a {@link SplittableRandom}); the part {@code partIndex} of {@code
 * numParts} is the contiguous block {@code [floor(p*n/k), floor((p+1)*n/k))} of that order (with
 * {@code evenShards}, every part takes {@code ceil(n/k)} samples, wrapping to the order's start);
 * then the last-batch policy cuts the part, after the samples ROLL_OVER carried in from the last
 * epoch, into batches.
 *
 * <p>Thread-safe. Starting an epoch supersedes the previous one, whose cursor then throws.
 */
public final class SampleScheduler {
  private final int numSamples;
  private final Sampling sampling;
  private final int partSize;
  private final int batchSize;

  private long seed;
  private long generation;
  private @Nullable EpochPlan current;
  private int nextEpoch;
  private int[] carry = new int[0];
  private int resumePosition;
  // Reused across epochs: a superseded plan's cursor throws, so nothing reads them after.
  private int[] orderBuffer = new int[0];
  private int[] partBuffer = new int[0];
  private int[] streamBuffer = new int[0];

  /**
   * A scheduler for {@code numSamples} samples.
   *
   * @throws IllegalArgumentException if there are no samples, or this provider's part would be empty
   */
  public SampleScheduler(int numSamples, Sampling sampling) {
    if (numSamples <= 0) {
      throw new IllegalArgumentException("no samples: a provider needs at least one sample");
    }
    this.numSamples = numSamples;
    this.sampling = sampling;
    int k = sampling.numParts();
    int p = sampling.partIndex();
    this.partSize = sampling.evenShards()
        ? (int) ((numSamples + (long) k - 1) / k)
        : (int) ((long) (p + 1) * numSamples / k - (long) p * numSamples / k);
    if (partSize == 0) {
      throw new IllegalArgumentException("part " + p + " of " + k + " would be empty: " + numSamples
          + " samples cannot fill " + k + " parts; use fewer parts or evenShards(true)");
    }
    this.batchSize = sampling.batchSize() == 0 ? partSize : sampling.batchSize();
    Long s = sampling.seed();
    this.seed = s != null ? s : ThreadLocalRandom.current().nextLong();
  }

  /** The number of samples in the source (all parts). */
  public int numSamples() {
    return numSamples;
  }

  /** The number of samples in this provider's part. */
  public int partSize() {
    return partSize;
  }

  /** Rows per full batch: the configured size, or the part size when it was 0. */
  public int batchSize() {
    return batchSize;
  }

  /** The settings. */
  public Sampling sampling() {
    return sampling;
  }

  /** The seed in use (the configured one, or the one drawn at construction). */
  public synchronized long seed() {
    return seed;
  }

  /** Starts the next epoch (or resumes the restored one), superseding any epoch in progress. */
  public synchronized EpochPlan beginEpoch() {
    int epoch = nextEpoch;
    int[] carriedIn = carry;
    int[] part = partOrder(epoch);
    int carried = carriedIn.length;
    int total = carried + part.length;
    int full = total / batchSize;
    int rem = total % batchSize;
    LastBatch policy = sampling.lastBatch();
    int batchCount = full;
    int lastRows = batchSize;
    int lastPad = 0;
    int[] stream;
    int[] carryOut = new int[0];
    switch (policy) {
      case PARTIAL:
        stream = concat(carriedIn, part, 0);
        if (rem > 0) {
          batchCount = full + 1;
          lastRows = rem;
        }
        break;
      case DISCARD:
        stream = concat(carriedIn, part, 0);
        break;
      case ROLL_OVER:
        stream = concat(carriedIn, part, 0);
        carryOut = Arrays.copyOfRange(stream, full * batchSize, total);
        break;
      case PAD_WRAP:
      case PAD_CONSTANT:
        int pad = rem == 0 ? 0 : batchSize - rem;
        stream = concat(carriedIn, part, pad);
        for (int i = 0; i < pad; i++) {
          stream[total + i] = policy == LastBatch.PAD_WRAP ? part[i % part.length] : EpochPlan.CONSTANT_PAD;
        }
        if (rem > 0) {
          batchCount = full + 1;
          lastPad = pad;
        }
        break;
      default:
        throw new AssertionError(policy);
    }
    if (batchCount == 0) {
      lastRows = 0;
    }
    int start = Math.min(resumePosition, batchCount);
    generation++;
    current = new EpochPlan(this, generation, epoch, stream, carriedIn, batchSize, batchCount,
        lastRows, lastPad, start);
    nextEpoch = epoch + 1;
    carry = carryOut;
    resumePosition = 0;
    return current;
  }

  /**
   * Where iteration stands: the epoch in progress and its delivered batches, or, between epochs,
   * the next epoch at position 0.
   */
  public synchronized IterationState saveState() {
    EpochPlan c = current;
    if (c != null && c.position() < c.batchCount()) {
      return new IterationState(seed, c.epoch(), c.position(), c.carriedIn(), fingerprint());
    }
    return new IterationState(seed, nextEpoch, resumePosition, carry, fingerprint());
  }

  /**
   * Makes the next {@link #beginEpoch()} continue from {@code state}; an epoch in progress is
   * superseded.
   *
   * @throws IllegalArgumentException if the state belongs to other data or settings (the message
   *     shows both), or carries sample indices out of range
   */
  public synchronized void restoreState(IterationState state) {
    if (!state.settings().equals(fingerprint())) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other data or settings:\n"
          + "  saved:    " + state.settings() + "\n  this one: " + fingerprint());
    }
    int[] carried = state.carried();
    for (int i : carried) {
      if (i < 0 || i >= numSamples) {
        throw new IllegalArgumentException("iteration state carries sample " + i + ", outside [0, " + numSamples + ")");
      }
    }
    supersede();
    seed = state.seed();
    nextEpoch = state.epoch();
    carry = carried;
    resumePosition = state.position();
  }

  /**
   * Forgets the samples carried over by ROLL_OVER (MXNet NDArrayIter's {@code hard_reset}) and ends
   * any epoch in progress; the epoch counter goes on.
   */
  public synchronized void reset() {
    supersede();
    carry = new int[0];
    resumePosition = 0;
  }

  /** Ends the epoch in progress, if any: its cursor throws from now on. */
  public synchronized void supersede() {
    generation++;
    current = null;
  }

  synchronized void checkCurrent(EpochPlan plan) {
    if (plan.generation() != generation) {
      throw new IllegalStateException("this iteration (epoch " + plan.epoch() + ") is no longer current: "
          + "the provider started another iteration, was restored, reset or closed since. "
          + "One provider serves one iteration at a time; finish or break out of a loop before starting "
          + "the next, and use one provider per thread");
    }
  }

  /** The order of this part's samples in {@code epoch}. */
  int[] partOrder(int epoch) {
    int n = numSamples;
    if (orderBuffer.length != n) {
      orderBuffer = new int[n];
    }
    int[] order = orderBuffer;
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    if (sampling.shuffle()) {
      SplittableRandom rng = new SplittableRandom(mix(seed, epoch));
      for (int i = n - 1; i > 0; i--) {
        int j = rng.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
    int k = sampling.numParts();
    int p = sampling.partIndex();
    if (k == 1) {
      return order;
    }
    long start = sampling.evenShards() ? (long) p * partSize : (long) p * n / k;
    if (partBuffer.length != partSize) {
      partBuffer = new int[partSize];
    }
    int[] part = partBuffer;
    for (int i = 0; i < partSize; i++) {
      part[i] = order[(int) ((start + i) % n)];
    }
    return part;
  }

  private String fingerprint() {
    return "samples=" + numSamples + ",batch=" + batchSize + ",lastBatch=" + sampling.lastBatch()
        + ",shuffle=" + sampling.shuffle() + ",parts=" + sampling.numParts() + ",part=" + sampling.partIndex()
        + ",even=" + sampling.evenShards();
  }

  private int[] concat(int[] a, int[] b, int extra) {
    int need = a.length + b.length + extra;
    if (streamBuffer.length < need) {
      streamBuffer = new int[need];
    }
    int[] out = streamBuffer;
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** A 64-bit mix of (seed, epoch) (SplitMix64's finaliser), so nearby epochs get unrelated streams. */
  private static long mix(long seed, int epoch) {
    long z = seed + 0x9E3779B97F4A7C15L * (epoch + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
