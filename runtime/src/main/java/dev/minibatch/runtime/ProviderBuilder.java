package dev.minibatch.runtime;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.check.Check;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The settings every provider builder shares, kept as one {@link Settings} value. Provider
 * builders — {@link ArrayDataProvider.Builder}, the generated ones, the file providers' — extend
 * it, so the same calls read the same everywhere.
 *
 * @param <S> the concrete builder, returned by every setter
 */
public abstract class ProviderBuilder<S extends ProviderBuilder<S>> {
  /** What the subclass declares, under whatever the user sets. */
  private final Settings defaults;
  /** Every setting the user gives is set here; the setters below only delegate. */
  private final Settings.Builder given = Settings.builder();

  /** For subclasses without defaults of their own. */
  protected ProviderBuilder() {
    this(Settings.none());
  }

  /**
   * For subclasses that declare defaults (a generated provider's {@code @DataProvider(batchSize =
   * n)}, a shard set's elastic sharing): a default reads like a setting the user did not give, so
   * the user's settings replace it and {@link Settings#merge} never sees it as a conflict.
   */
  protected ProviderBuilder(Settings defaults) {
    this.defaults = java.util.Objects.requireNonNull(defaults, "defaults");
  }

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
    given.batchSize(batchSize);
    return self();
  }

  /** The last-batch policy; default {@link LastBatch#PARTIAL}. */
  public S lastBatch(LastBatch lastBatch) {
    given.lastBatch(lastBatch);
    return self();
  }

  /** Shuffle every epoch (a permutation, data and labels together); default false. */
  public S shuffle(boolean shuffle) {
    given.shuffle(shuffle);
    return self();
  }

  /** The shuffle seed: with it, the order is a pure function of (seed, epoch). */
  public S seed(long seed) {
    given.seed(seed);
    return self();
  }

  /**
   * Read only part {@code partIndex} of {@code numParts} disjoint parts that together cover every
   * sample (MXNet's {@code num_parts} / {@code part_index}).
   */
  public S shard(int numParts, int partIndex) {
    given.shard(numParts, partIndex);
    return self();
  }

  /**
   * Give every part the same number of samples, {@code ceil(n / numParts)}, by repeating the
   * epoch's first samples in the short parts, so data-parallel workers run the same number of
   * batches. Default false (parts are disjoint and their sizes differ by at most one).
   */
  public S evenShards(boolean evenShards) {
    given.evenShards(evenShards);
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
    given.elasticShards(elasticShards);
    return self();
  }

  /** The constant that pads {@code name} under {@link LastBatch#PAD_CONSTANT}. */
  public S padding(String name, double value) {
    given.padding(name, value);
    return self();
  }

  /** The padding constant of data names without their own (MXNet.jl {@code data_padding}); default 0. */
  public S dataPadding(double value) {
    given.dataPadding(value);
    return self();
  }

  /** The padding constant of label names without their own (MXNet.jl {@code label_padding}); default 0. */
  public S labelPadding(double value) {
    given.labelPadding(value);
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
    given.badSamples(policy);
    return self();
  }

  /**
   * Write batches on {@code threads} reader threads, ahead of the consumer, into a ring of
   * preallocated batch buffers ({@link Settings.Workers}); 0 writes each batch on the consumer's
   * thread. With a seed, the batches are the same for any number of readers. Default 0, or what the
   * provider declares.
   */
  public S readers(int threads) {
    given.readers(threads);
    return self();
  }

  /**
   * Let the reader threads write up to {@code batches} batches ahead of the one the consumer waits
   * for ({@link Settings.Workers}); default one more than the reader threads. Needs readers.
   */
  public S prefetchBuffer(int batches) {
    given.prefetchBuffer(batches);
    return self();
  }

  /**
   * Let the provider choose its reader threads and prefetch buffer while it runs, within the
   * machine's processors and 256 MiB of batch buffers ({@link Settings.Autotune#machine()}).
   * Instead of {@link #readers(int)} and {@link #prefetchBuffer(int)}; the batches are the same
   * whatever it chooses.
   */
  public S autotune() {
    return autotune(Settings.Autotune.machine());
  }

  /**
   * Let the provider choose its reader threads and prefetch buffer while it runs, within {@code
   * budget} ({@link Settings.Autotune}). Instead of {@link #readers(int)} and {@link
   * #prefetchBuffer(int)}; the batches are the same whatever it chooses.
   */
  public S autotune(Settings.Autotune budget) {
    given.autotune(budget);
    return self();
  }

  /**
   * Sets every setting {@code settings} sets, over what this builder set before (a shared group of
   * settings, e.g. one value for the training providers of a run).
   */
  public S settings(Settings settings) {
    given.apply(settings);
    return self();
  }

  /**
   * The settings as set so far over the subclass's defaults: what {@code build()} resolves, once,
   * into the provider's settings (drawing a seed when none was set).
   */
  protected final Settings settings() {
    return defaults.toBuilder().apply(given.build()).build();
  }

  /** The subclass's defaults alone. */
  protected final Settings defaultSettings() {
    return defaults;
  }

  /** The settings the user gave alone, without the defaults. */
  protected final Settings givenSettings() {
    return given.build();
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
    private static final BadSamples FAIL = new BadSamples(Action.FAIL, 0, -1);

    private final Action action;
    private final int maxCount;
    private final double maxFraction;

    private BadSamples(Action action, int maxCount, double maxFraction) {
      this.action = action;
      this.maxCount = maxCount;
      this.maxFraction = maxFraction;
    }

    /** What happens to a bad sample. */
    public enum Action {
      /** The epoch fails. */
      FAIL,
      /** The sample's row is left out of its batch. */
      SKIP,
      /** The sample's row holds the next sample of the source that reads. */
      REPLACE
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
      return count(Action.SKIP, maxPerEpoch);
    }

    /**
     * Leaves bad samples out of their batches, at most {@code floor(maxFraction * samples)} per
     * epoch, where samples are those the epoch (its part, when sharded) visits.
     *
     * @throws IllegalArgumentException unless {@code 0 <= maxFraction <= 1}
     */
    public static BadSamples skipFraction(double maxFraction) {
      return fraction(Action.SKIP, maxFraction);
    }

    /**
     * Writes, in a bad sample's row, the next sample of the source that reads ({@code index + 1},
     * wrapping round; that sample then appears twice in the epoch), at most {@code maxPerEpoch} bad
     * samples per epoch.
     *
     * @throws IllegalArgumentException if {@code maxPerEpoch < 0}
     */
    public static BadSamples replace(int maxPerEpoch) {
      return count(Action.REPLACE, maxPerEpoch);
    }

    /**
     * {@link #replace(int)} with a budget of {@code floor(maxFraction * samples)} per epoch.
     *
     * @throws IllegalArgumentException unless {@code 0 <= maxFraction <= 1}
     */
    public static BadSamples replaceFraction(double maxFraction) {
      return fraction(Action.REPLACE, maxFraction);
    }

    private static BadSamples count(Action action, int max) {
      return new BadSamples(action, Check.atLeast("the bad-sample budget", max, 0), -1);
    }

    private static BadSamples fraction(Action action, double fraction) {
      return new BadSamples(action, 0, Check.fraction("the bad-sample fraction", fraction));
    }

    /** Fail, skip or replace. */
    public Action action() {
      return action;
    }

    /** The most bad samples an epoch that visits {@code samples} samples may meet. */
    public int budget(int samples) {
      return maxFraction < 0 ? maxCount : (int) Math.floor(maxFraction * samples);
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof BadSamples b && action == b.action && maxCount == b.maxCount
          && Double.compare(maxFraction, b.maxFraction) == 0;
    }

    @Override
    public int hashCode() {
      return (action.hashCode() * 31 + maxCount) * 31 + Double.hashCode(maxFraction);
    }

    /** The factory call that makes this policy, e.g. {@code skip(10)}, {@code replaceFraction(0.001)}, {@code fail()}. */
    @Override
    public String toString() {
      String name = action.name().toLowerCase(java.util.Locale.ROOT);
      if (action == Action.FAIL) {
        return name + "()";
      }
      return maxFraction < 0 ? name + "(" + maxCount + ")" : name + "Fraction(" + maxFraction + ")";
    }
  }
}
