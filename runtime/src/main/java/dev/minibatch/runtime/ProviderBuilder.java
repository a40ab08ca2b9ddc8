package dev.minibatch.runtime;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.internal.settings.BadSamplePolicy;
import dev.minibatch.runtime.internal.settings.BadSamplePolicy.Action;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.internal.settings.Seeds;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The settings every random-access provider builder shares (see {@link Sampling}). Provider
 * builders — {@link ArrayDataProvider.Builder}, the generated ones, the file providers' — extend
 * it, so the same calls read the same everywhere.
 *
 * @param <S> the concrete builder, returned by every setter
 */
public abstract class ProviderBuilder<S extends ProviderBuilder<S>> {
  /** Unset until {@link #batchSize(int)}: building without a batch size is an error. */
  private int batchSize = -1;
  private LastBatch lastBatch = LastBatch.PARTIAL;
  private boolean shuffle;
  private @Nullable Long seed;
  private int numParts = 1;
  private int partIndex;
  private boolean evenShards;
  private boolean elasticShards;
  private final Map<String, Double> padding = new LinkedHashMap<>();
  private double dataPadding;
  private double labelPadding;
  private BadSamples badSamples = BadSamples.fail();

  /** For subclasses. */
  protected ProviderBuilder() {}

  /** This builder as its concrete type. */
  @SuppressWarnings("unchecked")
  protected final S self() {
    return (S) this;
  }

  /**
   * Rows per batch, {@code >= 1}; or 0 for the whole shard as one batch (MXNet.jl's {@code
   * batch_size = 0}; random-access providers only). Required: a builder without a batch size (and
   * no default declared by the provider) fails at {@code build()}.
   */
  public S batchSize(int batchSize) {
    this.batchSize = Sampling.checkBatchSize(batchSize);
    return self();
  }

  /** The last-batch policy; default {@link LastBatch#PARTIAL}. */
  public S lastBatch(LastBatch lastBatch) {
    this.lastBatch = lastBatch;
    return self();
  }

  /** Shuffle every epoch (a permutation, data and labels together); default false. */
  public S shuffle(boolean shuffle) {
    this.shuffle = shuffle;
    return self();
  }

  /** The shuffle seed: with it, the order is a pure function of (seed, epoch). */
  public S seed(long seed) {
    this.seed = seed;
    return self();
  }

  /**
   * Read only part {@code partIndex} of {@code numParts} disjoint parts that together cover every
   * sample (MXNet's {@code num_parts} / {@code part_index}).
   */
  public S shard(int numParts, int partIndex) {
    this.numParts = numParts;
    this.partIndex = partIndex;
    return self();
  }

  /**
   * Give every part the same number of samples, {@code ceil(n / numParts)}, by repeating the
   * epoch's first samples in the short parts, so data-parallel workers run the same number of
   * batches. Default false (parts are disjoint and their sizes differ by at most one).
   */
  public S evenShards(boolean evenShards) {
    this.evenShards = evenShards;
    return self();
  }

  /**
   * Let the parts take turns at the batches of one global order instead of each reading a block of
   * it: the epoch's order (shuffled or not) is cut into batches once, and batch {@code j} goes to
   * part {@code j mod numParts}. An {@link IterationState} saved by every part at the same step then
   * counts the global batches consumed, and restores into a provider with another {@code numParts}:
   * the rest of the epoch is dealt to the new parts, no sample repeated or skipped (docs/engine.md,
   * "Elastic shards"). With {@link #evenShards(boolean)}, every part gets the same number of batches
   * (the last round is topped up with the epoch's first batches). Default false. Needs a batch size
   * {@code >= 1}; not with {@code buckets}.
   */
  public S elasticShards(boolean elasticShards) {
    this.elasticShards = elasticShards;
    return self();
  }

  /** The constant that pads {@code name} under {@link LastBatch#PAD_CONSTANT}. */
  public S padding(String name, double value) {
    padding.put(name, value);
    return self();
  }

  /** The padding constant of data names without their own (MXNet.jl {@code data_padding}); default 0. */
  public S dataPadding(double value) {
    this.dataPadding = value;
    return self();
  }

  /** The padding constant of label names without their own (MXNet.jl {@code label_padding}); default 0. */
  public S labelPadding(double value) {
    this.labelPadding = value;
    return self();
  }

  /** Applies {@code settings} to this builder (so a group of settings can be shared). */
  public S apply(Consumer<? super S> settings) {
    settings.accept(self());
    return self();
  }

  /**
   * What to do with a sample that cannot be read (a corrupt record, an accessor that throws):
   * {@link BadSamples#fail()} (the default), skip or replace it under a budget per epoch.
   */
  public S badSamples(BadSamples policy) {
    this.badSamples = policy;
    return self();
  }

  /**
   * The settings as set so far, checked and resolved: the one place a provider's settings are
   * decided. Without a seed, one is drawn here ({@link Seeds#unseeded()}); call it once per
   * provider, when it is built, so everything that provider does reads the same values.
   *
   * @throws IllegalStateException if no batch size was set
   * @throws IllegalArgumentException if the settings do not fit together (see {@link Sampling})
   */
  protected final Sampling sampling() {
    if (batchSize < 0) {
      throw new IllegalStateException("no batch size: call batchSize(n) on the builder (n >= 1, or 0 for the whole shard "
          + "as one batch), or declare one with @DataProvider(batchSize = n)");
    }
    return new Sampling(batchSize, lastBatch, shuffle, seed != null ? seed : Seeds.unseeded(), seed != null, numParts,
        partIndex, evenShards, elasticShards, new Sampling.Padding(padding, dataPadding, labelPadding), badSamples.policy());
  }

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
   * the epoch over its budget throws {@link dev.minibatch.runtime.pipeline.PipelineStats.BadSampleBudgetException}
   * instead of being delivered. Only {@link RuntimeException}s count: an {@link Error} always fails.
   */
  public static final class BadSamples {
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
}
