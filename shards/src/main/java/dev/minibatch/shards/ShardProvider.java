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
import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.shards.internal.GeneratedShards;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * Batches streamed from a shard set in its global order (docs/shards.md): the files are read whole,
 * checked against the index's checksums, decoded and cached (at most {@link
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
 * padding.
 */
public final class ShardProvider extends EngineProvider<NamedBatch> {
  private final ShardReading reading;
  private final BatchEngine<NamedBatch> engine;

  private ShardProvider(Builder b, Sampling sampling) {
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
          variable);
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
    return new Builder(false).add(location, 1);
  }

  /**
   * A builder for a mix of shard sets, each added with {@link Builder#source(String, double)}:
   * every epoch takes from each set a number of samples proportional to its weight
   * (docs/shards.md, "Mixing shard sets").
   */
  public static Builder mix() {
    return new Builder(true);
  }

  @Override
  protected BatchEngine<NamedBatch> engine() {
    return engine;
  }

  /** The shard files read and decoded so far (a file dropped from the cache and needed again counts twice). */
  public int fileLoads() {
    return reading.loads();
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      reading.close();
    }
  }

  /** A shard set of the provider and its weight. */
  record Source(String location, double weight) {}

  /** Settings: where the shard set is and how to read it, plus everything {@link ProviderBuilder} shares. */
  public static final class Builder extends ProviderBuilder<Builder> {
    final boolean mix;
    final List<Source> sources = new ArrayList<>();
    long samplesPerEpoch = -1;
    @Nullable Configuration conf;
    @Nullable ShardIndex index;
    int shuffleWindow = 65_536;
    int cacheFiles;
    int readAhead = 2;
    int readers;
    final java.util.Map<String, Integer> maxLengths = new java.util.LinkedHashMap<>();
    final java.util.Map<String, Double> stepPaddings = new java.util.LinkedHashMap<>();

    private Builder(boolean mix) {
      // Elastic by default: a default, not a setting, so a generated provider's own
      // elasticShards(false) does not conflict with it (GeneratedShards).
      super(Settings.builder().elasticShards(true).build());
      this.mix = mix;
    }

    private Builder add(String location, double weight) {
      sources.add(new Source(Objects.requireNonNull(location, "location"), weight));
      return this;
    }

    /**
     * Adds the shard set in {@code location} to a {@link #mix()} with weight {@code weight}, a finite
     * number {@code > 0}: its share of each epoch is its weight over the sum of the weights. Sets
     * hold the same columns.
     *
     * @throws IllegalStateException on a builder of one set ({@link #builder(String)})
     */
    public Builder source(String location, double weight) {
      if (!mix) {
        throw new IllegalStateException("ShardProvider.builder(location) reads one shard set; mix several with "
            + "ShardProvider.mix().source(a, weightA).source(b, weightB)");
      }
      if (!(weight > 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException("the weight of " + location + " must be a finite number > 0, got " + weight);
      }
      return add(location, weight);
    }

    /**
     * The samples of each epoch, {@code >= 1}; default the samples of all sets. Fewer than a set
     * holds makes its epochs span several of the provider's, more makes it repeat: each set's
     * samples are drawn from its own epochs in turn, so none repeats before all have been read.
     */
    public Builder samplesPerEpoch(long samples) {
      if (samples < 1) {
        throw new IllegalArgumentException("samplesPerEpoch must be >= 1, got " + samples);
      }
      this.samplesPerEpoch = samples;
      return this;
    }

    /** The Hadoop configuration of the file system (credentials, endpoints); default a new one. */
    public Builder configuration(Configuration conf) {
      this.conf = Objects.requireNonNull(conf, "conf");
      return this;
    }

    /** The index {@link ShardSet#open} read, so that {@code build()} does not read it again. */
    Builder index(ShardIndex index) {
      this.index = index;
      return this;
    }

    /**
     * With shuffle, the samples are permuted within windows of this many consecutive positions of
     * the epoch's file order, {@code >= 1}; default 65 536. A larger window mixes more files and
     * holds more of them in the cache.
     */
    public Builder shuffleWindow(int samples) {
      if (samples < 1) {
        throw new IllegalArgumentException("shuffleWindow must be >= 1 sample, got " + samples);
      }
      this.shuffleWindow = samples;
      return this;
    }

    /**
     * The decoded files held at most, those being loaded included; default what a shuffle window
     * spans plus the read-ahead. With at least what the windows span, every file loads once per
     * epoch and read-ahead never drops a file the current window still reads; {@link #build()}
     * refuses fewer, naming the smallest that works (docs/shards.md, "The cache").
     */
    public Builder cacheFiles(int files) {
      if (files < 1) {
        throw new IllegalArgumentException("cacheFiles must be >= 1, got " + files);
      }
      this.cacheFiles = files;
      return this;
    }

    /** Files of the epoch read ahead of the one in use, {@code >= 0}; default 2. */
    public Builder readAhead(int files) {
      if (files < 0) {
        throw new IllegalArgumentException("readAhead must be >= 0, got " + files);
      }
      this.readAhead = files;
      return this;
    }

    /** Reader threads that write batches ahead of the consumer; default 0, none. */
    public Builder readers(int threads) {
      if (threads < 0) {
        throw new IllegalArgumentException("readers must be >= 0, got " + threads);
      }
      this.readers = threads;
      return this;
    }

    /**
     * The most steps a sample of the variable column {@code column} may hold, {@code >= 1}; default
     * none (the batch buffers are sized by the longest sample of the sets, which their indexes
     * give). A longer sample is a {@link dev.minibatch.runtime.io.FileFormatException} naming its
     * file, row and column when its batch is read.
     */
    public Builder maxLength(String column, int steps) {
      if (steps < 1) {
        throw new IllegalArgumentException("maxLength of '" + column + "' must be >= 1 step, got " + steps);
      }
      maxLengths.put(Objects.requireNonNull(column, "column"), steps);
      return this;
    }

    /**
     * The value the padded steps of the variable column {@code column} hold (as {@code
     * @Provides(stepPadding)} declares it for a generated provider); default 0.
     */
    public Builder stepPadding(String column, double value) {
      stepPaddings.put(Objects.requireNonNull(column, "column"), value);
      return this;
    }

    static {
      GeneratedShards.register(new GeneratedShards.Access() {
        @Override
        public <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source, Settings given,
            Settings defaults, String providerName, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches,
            GeneratedShards.@Nullable Variable<S> variable) {
          if (!(source instanceof Builder b)) {
            throw new IllegalArgumentException(providerName + ": shards(...) takes a ShardProvider.Builder, got "
                + source.getClass().getName());
          }
          return b.batcher(given, defaults, providerName, layouts, batches, variable);
        }
      });
    }

    /**
     * The batches of a generated provider: this builder's shard sets under its reading settings,
     * cut by the settings given to the generated builder merged with those given to this one, over
     * both builders' defaults.
     */
    private <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(Settings generated, Settings generatedDefaults,
        String providerName,
        IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches, GeneratedShards.@Nullable Variable<S> variable) {
      if (variable != null && variable.options().buckets() != null) {
        throw new IllegalArgumentException(providerName + ": buckets(...) cannot be honoured from a shard set: buckets"
            + " group every sample by its length before an epoch is cut, and a shard set's lengths are read file by"
            + " file as its global order reaches them; read without buckets (batches are padded to their longest"
            + " sample), or build from a List with samples(list)");
      }
      if (variable != null && (!maxLengths.isEmpty() || !stepPaddings.isEmpty())) {
        throw new IllegalArgumentException(providerName + ": maxLength and stepPadding are declared on the sample's"
            + " members (@Provides); leave them off the ShardProvider.Builder given to shards(...)");
      }
      if (sources.isEmpty()) {
        throw new IllegalStateException("a mix of no shard sets: add them with source(location, weight)");
      }
      Settings merged;
      try {
        merged = generatedDefaults.toBuilder().apply(defaultSettings()).apply(generated.merge(givenSettings())).build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(providerName + ": the ShardProvider.Builder given to shards(...) and "
            + providerName + ".Builder disagree: " + e.getMessage(), e);
      }
      ShardReading reading = new ShardReading(this, Sampling.resolve(merged));
      try {
        ShardSequences sequences = variable == null ? null
            : new ShardSequences(variable.fields(), variable.options().fixedLength(), variable.stepPadding());
        return SampleBatcher.of(providerName, reading.engine(providerName, layouts, batches, sequences), reading);
      } catch (RuntimeException | Error t) {
        reading.close();
        throw t;
      }
    }

    /**
     * The provider; reads the index now.
     *
     * @throws dev.minibatch.runtime.io.FileFormatException if the index is missing or malformed
     */
    public ShardProvider build() {
      if (sources.isEmpty()) {
        throw new IllegalStateException("a mix of no shard sets: add them with source(location, weight)");
      }
      return new ShardProvider(this, Sampling.resolve(settings()));
    }
  }
}
