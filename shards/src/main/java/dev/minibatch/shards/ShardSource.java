package dev.minibatch.shards;

import dev.minibatch.runtime.check.Check;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * Where a provider's samples come from and how they are read: one shard set or a weighted mix of
 * several, the samples of each epoch, the shuffle window, the cache, read-ahead and reader threads,
 * the node-local disk cache, the retries of failed reads, the file system's configuration, and the bound and step padding of variable columns. Immutable;
 * made once and handed to {@link ShardProvider#builder(ShardSource)} or to a generated provider's
 * {@code shards(source)}. It holds no batch setting (batch size, shuffle, seed, shards): those are
 * the provider builder's {@link dev.minibatch.runtime.Settings}, so none can be set in two places.
 *
 * <pre>{@code
 * ShardSource digits = ShardSource.of("hdfs://namenode/data/digits").shuffleWindow(4096).readAhead(4).build();
 * }</pre>
 */
public final class ShardSource {
  /** A shard set and its weight in a mix. */
  record Set(String location, double weight) {}

  /** The node-local disk cache: its directory and the most bytes of copies it holds. */
  record DiskCache(java.nio.file.Path directory, long maxBytes) {}

  final boolean mix;
  final List<Set> sets;
  final long samplesPerEpoch;
  final @Nullable Configuration conf;
  final int shuffleWindow;
  final int cacheFiles;
  final int readAhead;
  final int partitions;
  final @Nullable DiskCache diskCache;
  final Retries retries;
  final Map<String, Integer> maxLengths;
  final Map<String, Double> stepPaddings;
  /** The index {@link ShardSet#open} read, so that the provider does not read it again; not a setting. */
  final @Nullable ShardIndex index;

  private ShardSource(Builder b) {
    this.mix = b.mix;
    this.sets = List.copyOf(b.sets);
    this.samplesPerEpoch = b.samplesPerEpoch;
    this.conf = b.conf;
    this.shuffleWindow = b.shuffleWindow;
    this.cacheFiles = b.cacheFiles;
    this.readAhead = b.readAhead;
    this.partitions = b.partitions;
    this.diskCache = b.diskCache;
    this.retries = b.retries;
    this.maxLengths = Collections.unmodifiableMap(new LinkedHashMap<>(b.maxLengths));
    this.stepPaddings = Collections.unmodifiableMap(new LinkedHashMap<>(b.stepPaddings));
    this.index = b.index;
  }

  /** A builder for the shard set in {@code location}: a local path or a Hadoop URI. */
  public static Builder of(String location) {
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

  /** A builder that starts from this source. */
  public Builder toBuilder() {
    Builder b = new Builder(mix);
    b.sets.addAll(sets);
    b.samplesPerEpoch = samplesPerEpoch;
    b.conf = conf;
    b.shuffleWindow = shuffleWindow;
    b.cacheFiles = cacheFiles;
    b.readAhead = readAhead;
    b.partitions = partitions;
    b.diskCache = diskCache;
    b.retries = retries;
    b.maxLengths.putAll(maxLengths);
    b.stepPaddings.putAll(stepPaddings);
    b.index = index;
    return b;
  }

  /** The sets (with their weights in a mix) and every reading setting that differs from its default. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("ShardSource[");
    s.append(mix ? "mix " + sets : sets.get(0).location());
    if (samplesPerEpoch > 0) {
      s.append(", samplesPerEpoch(").append(samplesPerEpoch).append(')');
    }
    if (shuffleWindow != Builder.DEFAULT_WINDOW) {
      s.append(", shuffleWindow(").append(shuffleWindow).append(')');
    }
    if (cacheFiles > 0) {
      s.append(", cacheFiles(").append(cacheFiles).append(')');
    }
    if (readAhead != Builder.DEFAULT_READ_AHEAD) {
      s.append(", readAhead(").append(readAhead).append(')');
    }
    if (partitions > 0) {
      s.append(", partitions(").append(partitions).append(')');
    }
    if (diskCache != null) {
      s.append(", diskCache(").append(diskCache.directory()).append(", ").append(diskCache.maxBytes()).append(')');
    }
    if (!retries.equals(Retries.DEFAULT)) {
      s.append(", retries(").append(retries.attempts()).append(", ").append(retries.firstBackoff()).append(')');
    }
    maxLengths.forEach((c, n) -> s.append(", maxLength(\"").append(c).append("\", ").append(n).append(')'));
    stepPaddings.forEach((c, v) -> s.append(", stepPadding(\"").append(c).append("\", ").append(v).append(')'));
    return s.append(']').toString();
  }

  /** Sets a source's reading settings one by one; {@link #build()} makes the value. Not thread-safe. */
  public static final class Builder {
    static final int DEFAULT_WINDOW = 65_536;
    static final int DEFAULT_READ_AHEAD = 2;

    private final boolean mix;
    private final List<Set> sets = new ArrayList<>();
    private long samplesPerEpoch = -1;
    private @Nullable Configuration conf;
    private int shuffleWindow = DEFAULT_WINDOW;
    private int cacheFiles;
    private int readAhead = DEFAULT_READ_AHEAD;
    private int partitions;
    private @Nullable DiskCache diskCache;
    private Retries retries = Retries.DEFAULT;
    private final Map<String, Integer> maxLengths = new LinkedHashMap<>();
    private final Map<String, Double> stepPaddings = new LinkedHashMap<>();
    private @Nullable ShardIndex index;

    private Builder(boolean mix) {
      this.mix = mix;
    }

    private Builder add(String location, double weight) {
      sets.add(new Set(Objects.requireNonNull(location, "location"), weight));
      return this;
    }

    /**
     * Adds the shard set in {@code location} to a {@link #mix()} with weight {@code weight}, a finite
     * number {@code > 0}: its share of each epoch is its weight over the sum of the weights. Sets
     * hold the same columns.
     *
     * @throws IllegalStateException on a builder of one set ({@link #of(String)})
     */
    public Builder source(String location, double weight) {
      if (!mix) {
        throw new IllegalStateException("a builder of one shard set reads that set; mix several with "
            + "ShardSource.mix().source(a, weightA).source(b, weightB) (or ShardProvider.mix())");
      }
      return add(location, Check.positive("the weight of " + location, weight));
    }

    /**
     * The samples of each epoch, {@code >= 1}; default the samples of all sets. Fewer than a set
     * holds makes its epochs span several of the provider's, more makes it repeat: each set's
     * samples are drawn from its own epochs in turn, so none repeats before all have been read.
     */
    public Builder samplesPerEpoch(long samples) {
      this.samplesPerEpoch = Check.atLeast("samplesPerEpoch", samples, 1);
      return this;
    }

    /** The Hadoop configuration of the file system (credentials, endpoints); default a new one. */
    public Builder configuration(Configuration conf) {
      this.conf = Objects.requireNonNull(conf, "conf");
      return this;
    }

    /** The index {@link ShardSet#open} read, so that the provider does not read it again. */
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
      this.shuffleWindow = Check.atLeast("shuffleWindow", samples, 1);
      return this;
    }

    /**
     * The decoded files held at most, those being loaded included; default what a shuffle window
     * spans plus the read-ahead. With at least what the windows span, every file loads once per
     * epoch and read-ahead never drops a file the current window still reads; the provider refuses
     * fewer, naming the smallest that works (docs/shards.md, "The cache").
     */
    public Builder cacheFiles(int files) {
      this.cacheFiles = Check.atLeast("cacheFiles", files, 1);
      return this;
    }

    /**
     * Files of the epoch read ahead of the one in use, {@code >= 0}; default 2. Each epoch's stats
     * ({@code PipelineStats.of(iterator)}) show it as the stage {@code shard-read-ahead}: the files
     * loaded and how long batches waited for them (docs/shards.md, "Read-ahead in the stats").
     */
    public Builder readAhead(int files) {
      this.readAhead = Check.atLeast("readAhead", files, 0);
      return this;
    }

    /**
     * Reads the set in {@code count} canonical partitions, {@code >= 1}, so that each of {@code k}
     * trainers ({@code shard(k, p)}, elastic) reads only about {@code 1/k} of the files of each
     * epoch: global batch {@code j} comes from partition {@code j mod count}, and trainer {@code p}
     * gets every {@code k}-th batch, so {@code k} must divide {@code count}. The global batches are
     * the same for every such {@code k}, and a state saved under one resumes under another
     * (docs/shards.md, "Each trainer reads its share"). Default: not set, the global order of
     * "The global order", whose batches every trainer reads from all files. One set read whole:
     * not with a mix or {@code samplesPerEpoch}.
     */
    public Builder partitions(int count) {
      this.partitions = Check.atLeast("partitions", count, 1);
      return this;
    }

    /**
     * Keeps the shard files fetched in {@code directory}, a local directory shared by the trainer
     * processes of a node, holding at most {@code maxBytes >= 1} bytes of files (the least recently
     * used go first). A file is fetched once per node: checked against the index's CRC-32C as it
     * arrives, then read from there by every process and every later run, trusted, without a
     * checksum pass. The limit must hold the files the in-memory cache holds at once (a smaller one
     * is refused at {@code build()}, naming the smallest that works). Default: none, every load
     * reads the set's file system (docs/shards.md, "The disk cache").
     */
    public Builder diskCache(java.nio.file.Path directory, long maxBytes) {
      this.diskCache = new DiskCache(Objects.requireNonNull(directory, "directory"),
          Check.atLeast("the disk cache's maxBytes", maxBytes, 1));
      return this;
    }

    /**
     * How a read of the set's file system is tried again: at most {@code attempts >= 1} tries in all (1:
     * none again), the first retry after {@code firstBackoff >= 0}, each next one after twice as long
     * (at most 30 s), times a random factor in {@code [0.5, 1)}; only after a transient failure (a 503
     * or other 5xx, 408, 429, a connection reset, dropped or cut short, a time-out), never after a
     * missing or denied file or a wrong length or checksum. The last failure names the file's URI, the
     * attempts and the last cause. S3A's own retries are turned off under these unless the
     * configuration sets them. Default 6 attempts, 250 ms (docs/shards.md, "Retries").
     */
    public Builder retries(int attempts, java.time.Duration firstBackoff) {
      Objects.requireNonNull(firstBackoff, "firstBackoff");
      Check.atLeast("retries' attempts", attempts, 1);
      if (firstBackoff.isNegative()) {
        throw new IllegalArgumentException("retries' firstBackoff must not be negative, found " + firstBackoff);
      }
      this.retries = new Retries(attempts, firstBackoff);
      return this;
    }

    /**
     * The most steps a sample of the variable column {@code column} may hold, {@code >= 1}; default
     * none (the batch buffers are sized by the longest sample of the sets, which their indexes
     * give). A longer sample is a {@link dev.minibatch.runtime.io.FileFormatException} naming its
     * file, row and column when its batch is read.
     */
    public Builder maxLength(String column, int steps) {
      maxLengths.put(Objects.requireNonNull(column, "column"), Check.atLeast("maxLength of '" + column + "'", steps, 1));
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

    /**
     * The source.
     *
     * @throws IllegalStateException for a mix of no shard sets
     */
    public ShardSource build() {
      if (sets.isEmpty()) {
        throw new IllegalStateException("a mix of no shard sets: add them with source(location, weight)");
      }
      return new ShardSource(this);
    }
  }
}
