package dev.minibatch.runtime;

import dev.minibatch.runtime.internal.settings.BadSamplePolicy;
import dev.minibatch.runtime.internal.settings.BadSamplePolicy.Action;

/**
 * What a provider does with a sample it cannot read (a corrupt image, a record that does not parse,
 * an accessor that throws): {@linkplain #fail() fail} the epoch (the default), {@linkplain
 * #skip(int) skip} it, or {@linkplain #replace(int) replace} it by the next sample that reads, each
 * under a budget of bad samples per epoch. Set on any provider builder with {@link
 * ProviderBuilder#badSamples(BadSamples)}:
 *
 * <pre>{@code
 * ImageRecordProvider train = ImageRecordProvider.builder()
 *     .pathImgrec(Path.of("train.rec")).dataShape(3, 224, 224).batchSize(64)
 *     .badSamples(BadSamples.skip(10))   // at most 10 bad images per epoch
 *     .build();
 * }</pre>
 *
 * <p>Whether a sample is bad depends on the sample alone, so a seeded epoch gives the same batches
 * for any number of reader threads: a skipped sample's row is left out of its batch (the batch is
 * one row shorter), a replaced one's row holds the next sample of the source ({@code index + 1},
 * wrapping) that reads without error. Every bad sample is reported in the epoch's stats ({@link
 * dev.minibatch.runtime.pipeline.PipelineStats#badSamples()}), in batch order; the batch that takes
 * the epoch over its budget throws {@link dev.minibatch.runtime.pipeline.BadSampleBudgetException}
 * instead of being delivered. Only {@link RuntimeException}s count: an {@link Error} always fails.
 */
public final class BadSamples {
  private static final BadSamples FAIL = new BadSamples(BadSamplePolicy.FAIL);

  private final BadSamplePolicy policy;

  private BadSamples(BadSamplePolicy policy) {
    this.policy = policy;
  }

  /** The default: the first bad sample fails the epoch, its cause naming the sample. */
  public static BadSamples fail() {
    return FAIL;
  }

  /**
   * Leaves bad samples out of their batches, at most {@code maxPerEpoch} per epoch (per part, when
   * sharded).
   *
   * @throws IllegalArgumentException if {@code maxPerEpoch < 0}
   */
  public static BadSamples skip(int maxPerEpoch) {
    return new BadSamples(BadSamplePolicy.count(Action.SKIP, maxPerEpoch));
  }

  /**
   * Leaves bad samples out of their batches, at most {@code floor(maxFraction * samples)} per
   * epoch, where samples are those the epoch (its part, when sharded) visits.
   *
   * @throws IllegalArgumentException unless {@code 0 <= maxFraction <= 1}
   */
  public static BadSamples skipFraction(double maxFraction) {
    return new BadSamples(BadSamplePolicy.fraction(Action.SKIP, maxFraction));
  }

  /**
   * Writes, in a bad sample's row, the next sample of the source that reads ({@code index + 1},
   * wrapping round; that sample then appears twice in the epoch), at most {@code maxPerEpoch} bad
   * samples per epoch.
   *
   * @throws IllegalArgumentException if {@code maxPerEpoch < 0}
   */
  public static BadSamples replace(int maxPerEpoch) {
    return new BadSamples(BadSamplePolicy.count(Action.REPLACE, maxPerEpoch));
  }

  /**
   * {@link #replace(int)} with a budget of {@code floor(maxFraction * samples)} per epoch.
   *
   * @throws IllegalArgumentException unless {@code 0 <= maxFraction <= 1}
   */
  public static BadSamples replaceFraction(double maxFraction) {
    return new BadSamples(BadSamplePolicy.fraction(Action.REPLACE, maxFraction));
  }

  /** The resolved policy, for the settings. */
  BadSamplePolicy policy() {
    return policy;
  }

  /** E.g. {@code skip(10)}, {@code replaceFraction(0.001)}, {@code fail()}. */
  @Override
  public String toString() {
    return policy.toString();
  }
}
