package dev.minibatch.shards;

import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.internal.engine.BatchSlot;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.internal.engine.EngineProvider;
import dev.minibatch.runtime.internal.engine.ReaderThreads;
import dev.minibatch.runtime.internal.engine.RowWriter;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.shards.ShardColumns.Column;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
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
 * policy, reader threads) works as on every provider.
 */
public final class ShardProvider extends EngineProvider<NamedBatch> {
  private final BatchEngine<NamedBatch> engine;
  private final List<ShardStore> stores;
  private final ShardFiles files;
  private final ShardCache cache;
  private final MixOrder order;

  private ShardProvider(Builder b, Sampling sampling) {
    List<ShardStore> stores = new ArrayList<>();
    try {
      List<ShardIndex> indexes = new ArrayList<>();
      for (Source source : b.sources) {
        ShardStore s = ShardStore.open(source.location, b.conf != null ? new Configuration(b.conf) : new Configuration());
        stores.add(s);
        // A builder from ShardSet.provider() has the index already: no second read of it.
        indexes.add(b.index != null ? b.index : ShardIndex.read(s));
      }
      this.files = new ShardFiles(stores, indexes);
      int window = b.shuffleWindow;
      double[] weights = b.sources.stream().mapToDouble(Source::weight).toArray();
      this.order = new MixOrder(indexes, weights, b.samplesPerEpoch, sampling.shuffle(), sampling.seed(), window);
      // Each set being read holds what a window spans, ceil(window / minFile) + 1 files, and the
      // next ones read ahead.
      long need = 0;
      for (int s = 0; s < indexes.size(); s++) {
        if (order.quota(s) > 0) {
          int minFile = indexes.get(s).files().stream().mapToInt(ShardIndex.Entry::samples).min().orElse(1);
          need += (long) (window + minFile - 1) / minFile + 1 + b.readAhead;
        }
      }
      int capacity = b.cacheFiles > 0 ? b.cacheFiles : (int) Math.min(files.size(), need);
      this.cache = new ShardCache(files, capacity);
      List<Column> columns = files.columns();
      BatchEngine.Builder<NamedBatch> e = BatchEngine.<NamedBatch>builder("ShardProvider", order.length(), sampling)
          .layout(rows -> layout(columns, rows))
          .batches(NamedBatch::new)
          .draws(order)
          .rows(new Rows(files, cache, order, b.readAhead));
      if (b.readers > 0) {
        e.readers(new ReaderThreads("shard-reader", b.readers, b.readers + 2));
      }
      this.engine = e.build();
      this.stores = List.copyOf(stores);
    } catch (RuntimeException | Error t) {
      stores.forEach(ShardStore::close);
      throw t;
    }
  }

  private static BatchLayout layout(List<Column> columns, int rows) {
    List<dev.minibatch.DataDesc> data = new ArrayList<>();
    List<dev.minibatch.DataDesc> label = new ArrayList<>();
    for (Column c : columns) {
      (c.role() == dev.minibatch.Role.LABEL ? label : data).add(c.toDataDesc(rows));
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
    return cache.loads();
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      cache.close();
      stores.forEach(ShardStore::close);
    }
  }

  /** A shard set of the provider and its weight. */
  private record Source(String location, double weight) {}

  /**
   * Copies each row's sample from its decoded file: one bulk copy per array, the bytes as stored
   * (little-endian, the batch buffers' order on the machines ND4J runs on).
   */
  private static final class Rows implements RowWriter {
    private final long[] firsts;
    // The samples of every file but the last when they are all equal, else 0.
    private final int perFile;
    private final int[] rowBytes;
    private final ShardCache cache;
    private final MixOrder order;
    private final int readAhead;
    // The file order of the epoch last written, for read-ahead; replaced whole, so a reader thread
    // never pairs one epoch's order with another's places.
    private volatile @Nullable FileOrder fileOrder;
    @SuppressWarnings("unused")
    private int sink;

    /** Epoch {@code epoch}'s files in reading order, and each file's place in it. */
    private record FileOrder(int epoch, int[] files, int[] place) {}

    Rows(ShardFiles files, ShardCache cache, MixOrder order, int readAhead) {
      int f = files.size();
      this.firsts = files.firsts();
      int equal = files.entry(0).samples();
      for (int i = 1; i < f - 1; i++) {
        if (files.entry(i).samples() != equal || firsts[i] != (long) i * equal) {
          equal = 0;
          break;
        }
      }
      this.perFile = f > 1 && files.entry(f - 1).samples() > equal ? 0 : equal;
      this.rowBytes = files.columns().stream().mapToInt(Column::rowBytes).toArray();
      this.cache = cache;
      this.order = order;
      this.readAhead = readAhead;
    }

    @Override
    public void write(int[] indices, int from, int to, BatchSlot<?> slot) {
      CollateTarget out = CollateTarget.of(slot);
      int arrays = rowBytes.length;
      ByteBuffer[] dst = new ByteBuffer[arrays];
      for (int a = 0; a < arrays; a++) {
        dst[a] = out.bytes(a);
      }
      FileOrder ahead = readAhead > 0 ? fileOrder(slot.epoch()) : null;
      int touched = 0;
      int file = fileOf(indices[from]);
      byte[][] columns = cache.get(file);
      int furthest = ahead != null ? ahead.place[file] : 0;
      for (int r = from; r < to; r++) {
        int row = (int) (indices[r] - firsts[file]);
        byte[][] current = columns;
        if (r + 1 < to) {
          int next = fileOf(indices[r + 1]);
          if (next != file) {
            file = next;
            columns = cache.get(next);
            if (ahead != null) {
              furthest = Math.max(furthest, ahead.place[next]);
            }
          }
          // Touch the next sample's first bytes now, so its cache miss overlaps this copy: rows
          // drawn at random are each a miss the hardware prefetcher cannot foresee.
          touched += columns[0][(int) (indices[r + 1] - firsts[next]) * rowBytes[0]];
        }
        for (int a = 0; a < arrays; a++) {
          int n = rowBytes[a];
          dst[a].put(r * n, current[a], row * n, n);
        }
      }
      if (ahead != null) {
        // Once per batch, not per row: the files after the furthest one this batch reached.
        for (int k = 1; k <= readAhead && furthest + k < ahead.files.length; k++) {
          cache.prefetch(ahead.files[furthest + k]);
        }
      }
      if (touched == 0x5EED_0001) {
        sink = touched; // almost never: keeps the reads alive without a shared write per call
      }
    }

    private int fileOf(int sample) {
      if (perFile > 0) {
        // Every file but the last holds perFile samples (what ShardWriter writes): no search.
        return Math.min(sample / perFile, firsts.length - 1);
      }
      int i = Arrays.binarySearch(firsts, sample);
      return i >= 0 ? i : -i - 2;
    }

    /** Epoch {@code e}'s file order, made once per epoch. */
    private FileOrder fileOrder(int e) {
      FileOrder o = fileOrder;
      if (o == null || o.epoch != e) {
        int[] files = order.files(e, firsts);
        int[] place = new int[files.length];
        for (int i = 0; i < files.length; i++) {
          place[files[i]] = i;
        }
        o = new FileOrder(e, files, place);
        fileOrder = o;
      }
      return o;
    }
  }

  /** Settings: where the shard set is and how to read it, plus everything {@link ProviderBuilder} shares. */
  public static final class Builder extends ProviderBuilder<Builder> {
    private final boolean mix;
    private final List<Source> sources = new ArrayList<>();
    private long samplesPerEpoch = -1;
    private @Nullable Configuration conf;
    private @Nullable ShardIndex index;
    private int shuffleWindow = 65_536;
    private int cacheFiles;
    private int readAhead = 2;
    private int readers;

    private Builder(boolean mix) {
      this.mix = mix;
      elasticShards(true);
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
     * The decoded files held at most, {@code >= 1}; default what a shuffle window spans plus the
     * read-ahead. Fewer than a window spans makes files load more than once per epoch.
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
     * The provider; reads the index now.
     *
     * @throws dev.minibatch.runtime.io.FileFormatException if the index is missing or malformed
     */
    public ShardProvider build() {
      if (sources.isEmpty()) {
        throw new IllegalStateException("a mix of no shard sets: add them with source(location, weight)");
      }
      return new ShardProvider(this, sampling());
    }
  }
}
