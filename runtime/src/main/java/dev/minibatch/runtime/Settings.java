package dev.minibatch.runtime;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.check.Check;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * The settings every provider shares, as one immutable value: batch size and last-batch policy,
 * shuffle and seed, sharding, padding constants, the bad-sample policy and the reader threads
 * ({@link #workers()}). Every provider builder
 * ({@link ProviderBuilder}) holds one and its setters only build it; a value can be made once and
 * handed to several builders with {@link ProviderBuilder#settings(Settings)}:
 *
 * <pre>{@code
 * Settings training = Settings.builder().batchSize(64).shuffle(true).seed(7).build();
 * ArrayDataProvider train = ArrayDataProvider.builder().data("x", x).label("y", y).settings(training).build();
 * }</pre>
 *
 * <p>A value remembers which settings were set: a setting left unset reads as its default
 * ({@link #lastBatch()} {@code PARTIAL}, no shuffle, one part, padding 0, {@link BadSamples#fail()},
 * no reader threads; or the default a provider declares, such as an image provider's four readers),
 * except the batch size and the seed, which have none ({@link #batchSize()}, {@link #seed()} are
 * empty). A provider resolves its value once, when it is built: a missing batch size is an error
 * then, and a missing seed is drawn then, once, and reported by the provider's {@code seed()}.
 * {@link #merge(Settings)} joins two values and refuses a setting they set differently, which is how
 * a setting given in two places is honoured or refused, never dropped.
 */
public final class Settings {
  private static final Settings NONE = new Builder().build();

  private final @Nullable Integer batchSize;
  private final @Nullable LastBatch lastBatch;
  private final @Nullable Boolean shuffle;
  private final @Nullable Long seed;
  private final @Nullable Integer numParts;
  private final @Nullable Integer partIndex;
  private final @Nullable Boolean evenShards;
  private final @Nullable Boolean elasticShards;
  private final Map<String, Double> padding;
  private final @Nullable Double dataPadding;
  private final @Nullable Double labelPadding;
  private final @Nullable BadSamples badSamples;
  private final @Nullable Integer readers;
  private final @Nullable Integer prefetchBuffer;
  private final @Nullable Autotune autotune;

  private Settings(Builder b) {
    if (b.autotune != null && (b.readers != null || b.prefetchBuffer != null)) {
      throw new IllegalArgumentException("autotune(" + b.autotune + ") chooses the reader threads and the prefetch"
          + " buffer, and " + (b.readers != null ? "readers(" + b.readers + ")" : "prefetchBuffer(" + b.prefetchBuffer + ")")
          + " is set too: set autotune or the readers, not both");
    }
    this.batchSize = b.batchSize;
    this.lastBatch = b.lastBatch;
    this.shuffle = b.shuffle;
    this.seed = b.seed;
    this.numParts = b.numParts;
    this.partIndex = b.partIndex;
    this.evenShards = b.evenShards;
    this.elasticShards = b.elasticShards;
    this.padding = Collections.unmodifiableMap(new LinkedHashMap<>(b.padding));
    this.dataPadding = b.dataPadding;
    this.labelPadding = b.labelPadding;
    this.badSamples = b.badSamples;
    this.readers = b.readers;
    this.prefetchBuffer = b.prefetchBuffer;
    this.autotune = b.autotune;
  }

  /** A value that sets nothing: every setting reads as its default. */
  public static Settings none() {
    return NONE;
  }

  /** A builder of a value that sets nothing yet. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from this value's settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.batchSize = batchSize;
    b.lastBatch = lastBatch;
    b.shuffle = shuffle;
    b.seed = seed;
    b.numParts = numParts;
    b.partIndex = partIndex;
    b.evenShards = evenShards;
    b.elasticShards = elasticShards;
    b.padding.putAll(padding);
    b.dataPadding = dataPadding;
    b.labelPadding = labelPadding;
    b.badSamples = badSamples;
    b.readers = readers;
    b.prefetchBuffer = prefetchBuffer;
    b.autotune = autotune;
    return b;
  }

  /** Rows per batch ({@code >= 1}, or 0 for the whole shard as one batch); empty if not set. */
  public OptionalInt batchSize() {
    return batchSize == null ? OptionalInt.empty() : OptionalInt.of(batchSize);
  }

  /** The last-batch policy; default {@link LastBatch#PARTIAL}. */
  public LastBatch lastBatch() {
    return lastBatch == null ? LastBatch.PARTIAL : lastBatch;
  }

  /** Whether every epoch uses a new permutation; default false. */
  public boolean shuffle() {
    return shuffle != null && shuffle;
  }

  /** The user's seed; empty if not set (the provider draws one when it is built). */
  public OptionalLong seed() {
    return seed == null ? OptionalLong.empty() : OptionalLong.of(seed);
  }

  /** The sharding settings: part {@code partIndex} of {@code numParts}, even and elastic; default one part. */
  public Sharding sharding() {
    return new Sharding(numParts == null ? 1 : numParts, partIndex == null ? 0 : partIndex,
        evenShards != null && evenShards, elasticShards != null && elasticShards);
  }

  /** The padding constants of {@link LastBatch#PAD_CONSTANT}; default 0 for every name. */
  public Padding padding() {
    return new Padding(padding, dataPadding == null ? 0 : dataPadding, labelPadding == null ? 0 : labelPadding);
  }

  /** What a provider does with a sample it cannot read; default {@link BadSamples#fail()}. */
  public BadSamples badSamples() {
    return badSamples == null ? BadSamples.fail() : badSamples;
  }

  /**
   * The threads that write batches ahead of the consumer, and how far ahead; default none (the
   * consumer's thread writes each batch when it asks for it).
   */
  public Workers workers() {
    return new Workers(readers == null ? 0 : readers, prefetchBuffer == null ? 0 : prefetchBuffer, autotune);
  }

  /**
   * The settings set in this value or in {@code other}.
   *
   * @throws IllegalArgumentException naming the setting and both values if the two set one setting
   *     to different values
   */
  public Settings merge(Settings other) {
    Builder b = toBuilder();
    b.batchSize = join("batchSize", batchSize, other.batchSize);
    b.lastBatch = join("lastBatch", lastBatch, other.lastBatch);
    b.shuffle = join("shuffle", shuffle, other.shuffle);
    b.seed = join("seed", seed, other.seed);
    b.numParts = join("shard numParts", numParts, other.numParts);
    b.partIndex = join("shard partIndex", partIndex, other.partIndex);
    b.evenShards = join("evenShards", evenShards, other.evenShards);
    b.elasticShards = join("elasticShards", elasticShards, other.elasticShards);
    for (Map.Entry<String, Double> e : other.padding.entrySet()) {
      b.padding.put(e.getKey(), join("padding of '" + e.getKey() + "'", padding.get(e.getKey()), e.getValue()));
    }
    b.dataPadding = join("dataPadding", dataPadding, other.dataPadding);
    b.labelPadding = join("labelPadding", labelPadding, other.labelPadding);
    b.badSamples = join("badSamples", badSamples, other.badSamples);
    b.readers = join("readers", readers, other.readers);
    b.prefetchBuffer = join("prefetchBuffer", prefetchBuffer, other.prefetchBuffer);
    b.autotune = join("autotune", autotune, other.autotune);
    return b.build();
  }

  private static <T> @Nullable T join(String setting, @Nullable T mine, @Nullable T theirs) {
    if (mine != null && theirs != null && !mine.equals(theirs)) {
      throw new IllegalArgumentException(setting + " is set twice, to " + mine + " and to " + theirs
          + ": set it in one place");
    }
    return mine != null ? mine : theirs;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Settings s && Objects.equals(batchSize, s.batchSize) && lastBatch == s.lastBatch
        && Objects.equals(shuffle, s.shuffle) && Objects.equals(seed, s.seed) && Objects.equals(numParts, s.numParts)
        && Objects.equals(partIndex, s.partIndex) && Objects.equals(evenShards, s.evenShards)
        && Objects.equals(elasticShards, s.elasticShards) && padding.equals(s.padding)
        && Objects.equals(dataPadding, s.dataPadding) && Objects.equals(labelPadding, s.labelPadding)
        && Objects.equals(badSamples, s.badSamples) && Objects.equals(readers, s.readers)
        && Objects.equals(prefetchBuffer, s.prefetchBuffer) && Objects.equals(autotune, s.autotune);
  }

  @Override
  public int hashCode() {
    return Objects.hash(batchSize, lastBatch, shuffle, seed, numParts, partIndex, evenShards, elasticShards, padding,
        dataPadding, labelPadding, badSamples, readers, prefetchBuffer, autotune);
  }

  /** The settings that are set, as the builder calls that set them, e.g. {@code Settings[batchSize(32), seed(7)]}. */
  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "Settings[", "]");
    add(j, "batchSize", batchSize);
    add(j, "lastBatch", lastBatch);
    add(j, "shuffle", shuffle);
    add(j, "seed", seed);
    if (numParts != null) {
      j.add("shard(" + numParts + ", " + partIndex + ")");
    }
    add(j, "evenShards", evenShards);
    add(j, "elasticShards", elasticShards);
    padding.forEach((name, value) -> j.add("padding(\"" + name + "\", " + value + ")"));
    add(j, "dataPadding", dataPadding);
    add(j, "labelPadding", labelPadding);
    add(j, "badSamples", badSamples);
    add(j, "readers", readers);
    add(j, "prefetchBuffer", prefetchBuffer);
    add(j, "autotune", autotune);
    return j.toString();
  }

  private static void add(StringJoiner j, String setter, @Nullable Object value) {
    if (value != null) {
      j.add(setter + "(" + value + ")");
    }
  }

  /**
   * Which part of the samples a provider reads, and how parts share an epoch.
   *
   * @param numParts the number of disjoint parts that together cover every sample, {@code >= 1}
   * @param partIndex the part read, in {@code [0, numParts)}
   * @param even every part gets {@code ceil(n / numParts)} samples (or, elastic, the same number of
   *     batches), topped up with the epoch's first ones
   * @param elastic the parts take turns at the batches of one global order, so a state saved under
   *     one part count resumes under another
   */
  public record Sharding(int numParts, int partIndex, boolean even, boolean elastic) {}

  /**
   * The reader threads of a provider: threads that write whole batches into a ring of preallocated
   * batch buffers ahead of the consumer (Data Provider Core's Readers, MXNet's {@code
   * preprocess_threads} and {@code prefetch_buffer}). With a seed the batches are the same for any
   * number of readers. The ring holds {@code prefetchBuffer + 2} buffers, one rule for every
   * provider: two for the batches the consumer may still use (the one it took last stays intact
   * while it takes the next), and {@code prefetchBuffer} the readers may fill ahead of the one it
   * waits for. With {@code autotune} the provider chooses both while it runs ({@link Autotune}).
   *
   * @param readers the reader threads; 0 writes each batch on the consumer's thread (or, with
   *     {@code autotune}, lets the tuner choose)
   * @param prefetchBuffer the batches the readers may write ahead of the one the consumer waits for;
   *     0 when not set, which is one more than the reader threads started
   * @param autotune the budget within which the readers and the prefetch buffer are chosen from
   *     measurements, or null when they are set by hand
   */
  public record Workers(int readers, int prefetchBuffer, @Nullable Autotune autotune) {
    /** Reader threads set by hand. */
    public Workers(int readers, int prefetchBuffer) {
      this(readers, prefetchBuffer, null);
    }

    /** Whether reader threads write the batches: {@code readers} above 0, or autotuning. */
    public boolean hasReaders() {
      return readers > 0 || autotune != null;
    }

    /** The most reader threads that may run: {@code readers}, or the autotuning budget's cpus. */
    public int mostReaders() {
      return autotune != null ? autotune.cpus() : readers;
    }

    /** The batches the readers may write ahead once {@code started} of them run: the one ring rule. */
    public int batchesAhead(int started) {
      return prefetchBuffer > 0 ? prefetchBuffer : started + 1;
    }
  }

  /**
   * Reader threads and prefetch buffer chosen while the provider runs (tf.data's {@code AUTOTUNE}),
   * within a budget: at most {@code cpus} reader threads, and batch buffers of at most {@code
   * memoryBytes} in all. The tuner starts at one reader writing one batch ahead, and at intervals of
   * the consumer's own calls adds a reader, then doubles how far ahead they write, keeping a change
   * only when the batches delivered per second rose by {@value #MIN_GAIN_PERCENT} % or more and the
   * consumer had waited for data; it stops at the first change that does not pay, or when the
   * consumer no longer waits (the model is the bottleneck). The batches are the same whatever it
   * chooses: with a seed they are the same for any number of readers. What it chose is in the
   * provider's {@code PipelineStats} ({@link dev.minibatch.runtime.pipeline.PipelineStats#tuning()}).
   * docs/pipeline.md, "Autotuning".
   *
   * @param cpus the most reader threads, {@code >= 1}
   * @param memoryBytes the most bytes the ring of batch buffers may hold, {@code >= 1}
   */
  public record Autotune(int cpus, long memoryBytes) {
    /** The least gain, in percent of batches per second, for which the tuner keeps a change. */
    public static final int MIN_GAIN_PERCENT = 3;

    /** Checks the budget. */
    public Autotune {
      Check.atLeast("autotune cpus", cpus, 1);
      if (memoryBytes < 1) {
        throw new IllegalArgumentException("autotune memoryBytes must be >= 1, got " + memoryBytes);
      }
    }

    /** The machine's processors and 256 MiB of batch buffers. */
    public static Autotune machine() {
      return new Autotune(Runtime.getRuntime().availableProcessors(), 256L << 20);
    }

    @Override
    public String toString() {
      return "cpus " + cpus + ", memory " + memoryBytes + " bytes";
    }
  }

  /**
   * The constants that pad rows under {@link LastBatch#PAD_CONSTANT}.
   *
   * @param byName constants by provided name
   * @param data the constant of data names not in {@code byName} (MXNet.jl {@code data_padding})
   * @param label the constant of label names not in {@code byName} (MXNet.jl {@code label_padding})
   */
  public record Padding(Map<String, Double> byName, double data, double label) {
    /** An unmodifiable, ordered copy. */
    public Padding {
      byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
    }

    /** The constant that pads the provided name {@code name}. */
    public double valueFor(String name, boolean isLabel) {
      Double v = byName.get(name);
      return v != null ? v : (isLabel ? label : data);
    }
  }

  /** Sets settings one by one; {@link #build()} makes the value. Not thread-safe. */
  public static final class Builder {
    private @Nullable Integer batchSize;
    private @Nullable LastBatch lastBatch;
    private @Nullable Boolean shuffle;
    private @Nullable Long seed;
    private @Nullable Integer numParts;
    private @Nullable Integer partIndex;
    private @Nullable Boolean evenShards;
    private @Nullable Boolean elasticShards;
    private final Map<String, Double> padding = new LinkedHashMap<>();
    private @Nullable Double dataPadding;
    private @Nullable Double labelPadding;
    private @Nullable BadSamples badSamples;
    private @Nullable Integer readers;
    private @Nullable Integer prefetchBuffer;
    private @Nullable Autotune autotune;

    private Builder() {}

    /**
     * Rows per batch, {@code >= 1}; or 0 for the whole shard as one batch (MXNet.jl's {@code
     * batch_size = 0}; random-access providers only). A provider is not built without one.
     *
     * @throws IllegalArgumentException if {@code batchSize < 0}
     */
    public Builder batchSize(int batchSize) {
      this.batchSize = Check.atLeast("batch size", batchSize, 0, "0 = the whole shard as one batch");
      return this;
    }

    /** The last-batch policy; default {@link LastBatch#PARTIAL}. */
    public Builder lastBatch(LastBatch lastBatch) {
      this.lastBatch = Objects.requireNonNull(lastBatch, "lastBatch");
      return this;
    }

    /** Shuffle every epoch (a permutation, data and labels together); default false. */
    public Builder shuffle(boolean shuffle) {
      this.shuffle = shuffle;
      return this;
    }

    /** The seed of every random draw: with it, the order is a pure function of (seed, epoch). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Read only part {@code partIndex} of {@code numParts} disjoint parts that together cover every
     * sample (MXNet's {@code num_parts} / {@code part_index}).
     *
     * @throws IllegalArgumentException unless {@code numParts >= 1} and {@code 0 <= partIndex < numParts}
     */
    public Builder shard(int numParts, int partIndex) {
      Check.atLeast("numParts", numParts, 1);
      Check.inRange("partIndex", partIndex, 0, numParts);
      this.numParts = numParts;
      this.partIndex = partIndex;
      return this;
    }

    /** Every part gets the same number of samples, topped up with the epoch's first ones; default false. */
    public Builder evenShards(boolean evenShards) {
      this.evenShards = evenShards;
      return this;
    }

    /** The parts take turns at the batches of one global order; default false. */
    public Builder elasticShards(boolean elasticShards) {
      this.elasticShards = elasticShards;
      return this;
    }

    /** The constant that pads {@code name} under {@link LastBatch#PAD_CONSTANT}. */
    public Builder padding(String name, double value) {
      padding.put(Objects.requireNonNull(name, "name"), value);
      return this;
    }

    /** The padding constant of data names without their own; default 0. */
    public Builder dataPadding(double value) {
      this.dataPadding = value;
      return this;
    }

    /** The padding constant of label names without their own; default 0. */
    public Builder labelPadding(double value) {
      this.labelPadding = value;
      return this;
    }

    /** What to do with a sample that cannot be read; default {@link BadSamples#fail()}. */
    public Builder badSamples(BadSamples policy) {
      this.badSamples = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Write batches on {@code threads} reader threads ahead of the consumer (see {@link Workers}); 0
     * writes them on the consumer's thread. Default 0, or what the provider declares.
     *
     * @throws IllegalArgumentException if {@code threads < 0}
     */
    public Builder readers(int threads) {
      this.readers = Check.atLeast("readers", threads, 0, "0 = the consumer's thread");
      return this;
    }

    /**
     * Let the reader threads write up to {@code batches} batches ahead of the one the consumer waits
     * for (see {@link Workers}); default one more than the reader threads. Needs {@link
     * #readers(int)} above 0.
     *
     * @throws IllegalArgumentException if {@code batches < 1}
     */
    public Builder prefetchBuffer(int batches) {
      this.prefetchBuffer = Check.atLeast("prefetchBuffer", batches, 1);
      return this;
    }

    /**
     * Let the provider choose its reader threads and prefetch buffer while it runs, within {@code
     * budget} ({@link Autotune}); instead of {@link #readers(int)} and {@link #prefetchBuffer(int)},
     * which a value refuses beside it.
     */
    public Builder autotune(Autotune budget) {
      this.autotune = Objects.requireNonNull(budget, "budget");
      return this;
    }

    /**
     * Sets every setting {@code settings} sets, over what this builder set. Reader threads and
     * autotuning replace each other: readers or a prefetch buffer set in {@code settings} replace
     * this builder's autotuning, and autotuning set there replaces this builder's readers and
     * prefetch buffer (a provider's declared readers give way to the user's autotuning).
     */
    public Builder apply(Settings settings) {
      if (settings.batchSize != null) {
        batchSize = settings.batchSize;
      }
      if (settings.lastBatch != null) {
        lastBatch = settings.lastBatch;
      }
      if (settings.shuffle != null) {
        shuffle = settings.shuffle;
      }
      if (settings.seed != null) {
        seed = settings.seed;
      }
      if (settings.numParts != null) {
        numParts = settings.numParts;
        partIndex = settings.partIndex;
      }
      if (settings.evenShards != null) {
        evenShards = settings.evenShards;
      }
      if (settings.elasticShards != null) {
        elasticShards = settings.elasticShards;
      }
      padding.putAll(settings.padding);
      if (settings.dataPadding != null) {
        dataPadding = settings.dataPadding;
      }
      if (settings.labelPadding != null) {
        labelPadding = settings.labelPadding;
      }
      if (settings.badSamples != null) {
        badSamples = settings.badSamples;
      }
      if (settings.readers != null) {
        readers = settings.readers;
      }
      if (settings.prefetchBuffer != null) {
        prefetchBuffer = settings.prefetchBuffer;
      }
      if (settings.readers != null || settings.prefetchBuffer != null) {
        autotune = null;
      }
      if (settings.autotune != null) {
        autotune = settings.autotune;
        readers = null;
        prefetchBuffer = null;
      }
      return this;
    }

    /** The value. */
    public Settings build() {
      return new Settings(this);
    }
  }
}
