package dev.minibatch.shards;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.internal.SampleBatcher;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.image.ImageDecoders;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.shards.internal.GeneratedShards;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * Batches streamed from a shard set in its global order (docs/shards.md): the files are read whole
 * (a local file mapped), checked against the index's checksums (a local file once, until it
 * changes), served to the batches from their own bytes and cached (at most {@link
 * Builder#cacheFiles(int)} files), and the next files of the epoch are read ahead on a thread of
 * their own while batches are made from the current ones. With {@code shuffle(true)}, the files
 * are permuted per epoch and the samples shuffled within windows of {@link
 * Builder#shuffleWindow(int)} positions, all from (seed, epoch). Shards are elastic by default
 * ({@link ProviderBuilder#elasticShards(boolean)}): trainer {@code p} of {@code k} gets batches
 * {@code p, p + k, …} of the global order, and a state saved by {@code k} trainers restores under
 * any other count. {@link #mix()} reads several shard sets of the same columns as one, each epoch
 * taking from each a share proportional to its weight. Every other shared setting (batch size, last-batch policy, padding, bad-sample
 * policy, reader threads) works as on every provider. A column with a variable axis gives batches
 * padded to their longest sample, with its mask and lengths ({@link
 * dev.minibatch.runtime.Batch#mask(String)}), as a generated provider's; {@link
 * Builder#maxLength(String, int)} and {@link Builder#stepPadding(String, double)} set its bound and
 * padding. A column of encoded images ({@link ImageShardWriter}) is decoded, augmented and normalised
 * on the reader threads by {@link ImageRecordProvider}'s own decode step, with the draws of (seed,
 * epoch, sample) ({@link Builder#augment(String, Consumer)}, {@link Builder#normalize(String,
 * Consumer)}).
 */
public final class ShardProvider extends EngineProvider<NamedBatch> {
  private final ShardReading reading;
  private final BatchEngine<NamedBatch> engine;

  private ShardProvider(ShardSource b, Sampling sampling, ImageDecoders images) {
    this.reading = new ShardReading(b, sampling);
    try {
      List<Column> columns = reading.columns();
      ShardSequences variable = ShardSequences.any(columns)
          ? ShardSequences.of(columns, b.maxLengths, b.stepPaddings) : null;
      if (variable == null && !(b.maxLengths.isEmpty() && b.stepPaddings.isEmpty())) {
        throw new IllegalArgumentException("maxLength and stepPadding name columns with a variable axis; the shard set "
            + "has none (its columns: " + columns.stream().map(Column::name).toList() + ")");
      }
      this.engine = reading.engine("ShardProvider", rows -> layout(columns, b.maxLengths, rows), NamedBatch::new,
          variable, images);
    } catch (RuntimeException | Error t) {
      reading.close();
      throw t;
    }
  }

  private static BatchLayout layout(List<Column> columns, java.util.Map<String, Integer> maxLengths, int rows) {
    List<dev.minibatch.DataDesc> data = new ArrayList<>();
    List<dev.minibatch.DataDesc> label = new ArrayList<>();
    for (Column c : columns) {
      // The writer's layout; the bound is this reader's (maxLength), not the writer's.
      dev.minibatch.DataDesc d = c.toDataDesc(rows).toBuilder().maxLength(maxLengths.getOrDefault(c.name(), 0))
          .build();
      (c.role() == dev.minibatch.Role.LABEL ? label : data).add(d);
    }
    return BatchLayout.of(data, label);
  }

  /** A builder for the shard set in {@code location}: a local path or a Hadoop URI. */
  public static Builder builder(String location) {
    return new Builder(ShardSource.of(location));
  }

  /** A builder reading {@code source}; its reading settings can still be changed on the builder. */
  public static Builder builder(ShardSource source) {
    return new Builder(source.toBuilder());
  }

  /**
   * A builder for a mix of shard sets, each added with {@link Builder#source(String, double)}:
   * every epoch takes from each set a number of samples proportional to its weight
   * (docs/shards.md, "Mixing shard sets").
   */
  public static Builder mix() {
    return new Builder(ShardSource.mix());
  }

  @Override
  protected BatchEngine<NamedBatch> engine() {
    return engine;
  }

  /** The shard files read and decoded so far (a file dropped from the cache and needed again counts twice). */
  public int fileLoads() {
    return reading.loads();
  }

  /**
   * The bytes of shard files read from the sets' file systems so far (the index, read at {@code
   * build()}, not counted; a file fetched again after a failed check counts twice). With a {@link
   * Builder#diskCache disk cache}, a file found there costs none: the difference over an epoch is
   * that epoch's remote bytes.
   */
  public long remoteBytes() {
    return reading.remoteBytes();
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      reading.close();
    }
  }

  /**
   * Settings: the {@link ShardSource} (where the shard sets are and how to read them; its setters
   * are repeated here for a provider built in one chain), plus everything {@link ProviderBuilder}
   * shares.
   */
  public static final class Builder extends ProviderBuilder<Builder> {
    private final ShardSource.Builder source;
    private final ImageDecoders images = new ImageDecoders();

    private Builder(ShardSource.Builder source) {
      // Elastic by default: a default, not a setting, so a generated provider's own
      // elasticShards(false) does not conflict with it (GeneratedShards).
      super(Settings.builder().elasticShards(true).build());
      this.source = source;
    }

    /** The source as set so far. */
    ShardSource source() {
      return source.build();
    }

    /** {@link ShardSource.Builder#source(String, double)}: adds a set to a {@link #mix()}. */
    public Builder source(String location, double weight) {
      source.source(location, weight);
      return this;
    }

    /** {@link ShardSource.Builder#samplesPerEpoch(long)}. */
    public Builder samplesPerEpoch(long samples) {
      source.samplesPerEpoch(samples);
      return this;
    }

    /** {@link ShardSource.Builder#configuration(Configuration)}. */
    public Builder configuration(Configuration conf) {
      source.configuration(conf);
      return this;
    }

    /** The index {@link ShardSet#open} read, so that {@code build()} does not read it again. */
    Builder index(ShardIndex index) {
      source.index(index);
      return this;
    }

    /** {@link ShardSource.Builder#shuffleWindow(int)}. */
    public Builder shuffleWindow(int samples) {
      source.shuffleWindow(samples);
      return this;
    }

    /** {@link ShardSource.Builder#cacheFiles(int)}. */
    public Builder cacheFiles(int files) {
      source.cacheFiles(files);
      return this;
    }

    /** {@link ShardSource.Builder#readAhead(int)}. */
    public Builder readAhead(int files) {
      source.readAhead(files);
      return this;
    }

    /** {@link ShardSource.Builder#partitions(int)}. */
    public Builder partitions(int count) {
      source.partitions(count);
      return this;
    }

    /** {@link ShardSource.Builder#diskCache(java.nio.file.Path, long)}. */
    public Builder diskCache(java.nio.file.Path directory, long maxBytes) {
      source.diskCache(directory, maxBytes);
      return this;
    }

    /** {@link ShardSource.Builder#retries(int, java.time.Duration)}. */
    public Builder retries(int attempts, java.time.Duration firstBackoff) {
      source.retries(attempts, firstBackoff);
      return this;
    }

    /** {@link ShardSource.Builder#maxLength(String, int)}. */
    public Builder maxLength(String column, int steps) {
      source.maxLength(column, steps);
      return this;
    }

    /**
     * Sets the {@link ImageRecordProvider.Augment} options of encoded-image column {@code column}
     * (docs/shards.md, "Encoded images"), e.g. {@code augment("data", a -> a.randCrop(true).randMirror(true))};
     * calls add up, the last value wins. Without it, a column's images are brought to its shape as
     * {@link ImageRecordProvider} does without augmentation (the centre crop).
     */
    public Builder augment(String column, Consumer<ImageRecordProvider.Augment> options) {
      images.augment(column, options);
      return this;
    }

    /**
     * Sets the {@link ImageRecordProvider.Normalize} options of encoded-image column {@code column}
     * (a FLOAT32 one); calls add up, the last value wins. A {@code meanImg} must exist.
     */
    public Builder normalize(String column, Consumer<ImageRecordProvider.Normalize> options) {
      images.normalize(column, options);
      return this;
    }

    /** {@link ImageRecordProvider.Builder#reducedDecode(boolean)} for every encoded-image column; default true. */
    public Builder reducedDecode(boolean reduced) {
      images.reducedDecode(reduced);
      return this;
    }

    /** {@link ShardSource.Builder#stepPadding(String, double)}. */
    public Builder stepPadding(String column, double value) {
      source.stepPadding(column, value);
      return this;
    }

    static {
      GeneratedAccess.register();
    }

    /**
     * The batches of a generated provider: this builder's shard sets under its reading settings,
     * cut by the settings given to the generated builder merged with those given to this one, over
     * both builders' defaults.
     */
    <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(Settings generated, Settings generatedDefaults,
        String providerName, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches,
        GeneratedShards.@Nullable Variable<S> variable, GeneratedShards.@Nullable Images generatedImages) {
      if (variable != null && variable.options().buckets() != null) {
        throw new IllegalArgumentException(providerName + ": buckets(...) cannot be honoured from a shard set: buckets"
            + " group every sample by its length before an epoch is cut, and a shard set's lengths are read file by"
            + " file as its global order reaches them; read without buckets (batches are padded to their longest"
            + " sample), or build from a List with samples(list)");
      }
      ShardSource source = source();
      if (images.any()) {
        throw new IllegalArgumentException(providerName + ": augment, normalize and reducedDecode on the"
            + " ShardProvider.Builder given to shards(...) are not used: " + (generatedImages == null ? providerName
            + " reads no encoded images; read the set with ShardProvider, which decodes them"
            : "set them on " + providerName + ".Builder, for its encoded-image members"));
      }
      if (variable != null && (!source.maxLengths.isEmpty() || !source.stepPaddings.isEmpty())) {
        throw new IllegalArgumentException(providerName + ": maxLength and stepPadding are declared on the sample's"
            + " members (@Provides); leave them off the shard source given to shards(...)");
      }
      Settings merged;
      try {
        merged = generatedDefaults.toBuilder().apply(defaultSettings()).apply(generated.merge(givenSettings())).build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(providerName + ": the ShardProvider.Builder given to shards(...) and "
            + providerName + ".Builder disagree: " + e.getMessage(), e);
      }
      ShardReading reading = new ShardReading(source, Sampling.resolve(merged));
      try {
        ShardSequences sequences = variable == null ? null
            : new ShardSequences(variable.fields(), variable.options().fixedLength(), variable.stepPadding());
        ImageDecoders decoding = generatedImages == null ? null : generatedImages.decoders();
        return SampleBatcher.of(providerName, reading.engine(providerName, layouts, batches, sequences, decoding,
            generatedImages == null ? null : generatedImages.fields()), reading);
      } catch (RuntimeException | Error t) {
        reading.close();
        throw t;
      }
    }

    /**
     * The provider; reads the index now.
     *
     * @throws IllegalStateException for a mix of no shard sets
     * @throws dev.minibatch.runtime.io.FileFormatException if the index is missing or malformed
     */
    public ShardProvider build() {
      return new ShardProvider(source(), Sampling.resolve(settings()), images);
    }
  }
}
