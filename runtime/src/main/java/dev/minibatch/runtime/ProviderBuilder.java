package dev.minibatch.runtime;

import dev.minibatch.LastBatch;
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
        partIndex, evenShards, new Sampling.Padding(padding, dataPadding, labelPadding), badSamples.policy());
  }
}
