package dev.minibatch.shards;

import dev.minibatch.DataDesc;
import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.runtime.internal.engine.Collate;
import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.image.ImageDecoder;
import dev.minibatch.runtime.io.image.ImageDecoders;
import dev.minibatch.shards.ShardColumns.Column;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * What a provider over shard sets holds besides its batch buffers: the open stores, the files
 * numbered across the sets, the epoch order and the cache of decoded files; and the engine that
 * makes batches of them, of whatever batch class the provider has ({@link ShardProvider}'s named
 * batches or a generated provider's typed ones). Closing it stops the read-ahead and closes the
 * stores; the engine is closed by its provider.
 */
final class ShardReading implements AutoCloseable {
  private final List<ShardStore> stores;
  private final ShardFiles files;
  private final EpochDraws order;
  private final ShardCache cache;
  private final FileNeeds needs;
  private final Sampling sampling;
  private final int readAhead;

  ShardReading(ShardSource b, Sampling sampling) {
    List<ShardStore> open = new ArrayList<>();
    try {
      List<ShardIndex> indexes = new ArrayList<>();
      for (ShardSource.Set source : b.sets) {
        ShardStore s = ShardStore.open(source.location(), b.conf != null ? new Configuration(b.conf) : new Configuration(),
            b.retries);
        open.add(s);
        // A builder from ShardSet.provider() has the index already: no second read of it.
        indexes.add(b.index != null ? b.index : ShardIndex.read(s));
      }
      this.files = new ShardFiles(open, indexes);
      int window = b.shuffleWindow;
      int readers = sampling.workers().mostReaders();
      int capacity;
      int atOnce;
      String what;
      if (b.partitions > 0) {
        // Each trainer reads its share: one set, in partitions (PartitionOrder, CacheSize.Shares).
        PartitionOrder shares = PartitionOrder.of(b, indexes, open.get(0).directory().toString(), sampling);
        CacheSize.Shares cache = new CacheSize.Shares(indexes.get(0), shares, sampling, readers);
        capacity = cache.capacity(b.cacheFiles, window, b.readAhead, open.get(0).directory().toString());
        atOnce = cache.smallest();
        what = "this trainer's partitions read";
        this.order = new SharedDraws(shares);
        this.needs = new FileNeeds(order, files, Math.max(1, readers), sampling.numParts(), shares.batch(), 0, -1);
      } else {
        double[] weights = b.sets.stream().mapToDouble(ShardSource.Set::weight).toArray();
        MixOrder mix = new MixOrder(indexes, weights, b.samplesPerEpoch, sampling.shuffle(), sampling.seed(), window);
        CacheSize.Reach reach = CacheSize.reach(sampling.shuffle(), window, readers, sampling.batchSize());
        atOnce = CacheSize.smallest(indexes, mix, reach);
        what = sampling.shuffle() ? "a shuffle window reads" : "the batches read";
        if (b.cacheFiles > 0 && b.cacheFiles < atOnce) {
          throw new IllegalArgumentException(CacheSize.tooSmall(b.cacheFiles, indexes, mix, reach, open, readers));
        }
        capacity = b.cacheFiles > 0 ? b.cacheFiles
            : Math.min(files.size(), CacheSize.byDefault(indexes, mix, reach, window, b.readAhead));
        this.order = new SharedDraws(mix);
        int n = mix.length();
        int batch = sampling.batchRows(n);
        // Where this trainer's batches lie in the epoch's order: the global plan's positions when
        // dealt (elasticShards, the default), else a contiguous part from its start.
        boolean cut = !sampling.elasticShards() && sampling.numParts() > 1;
        long partStart = cut ? sampling.partStart(n) : 0;
        long starts = cut ? partStart : (long) sampling.partIndex() * batch % n;
        this.needs = new FileNeeds(order, files, Math.max(1, readers), 1, batch, partStart, starts);
      }
      ShardDiskCache disk = null;
      if (b.diskCache != null) {
        disk = new ShardDiskCache(b.diskCache.directory(), b.diskCache.maxBytes());
        disk.check(files, atOnce, what);
      }
      this.cache = new ShardCache(files, capacity, needs, disk);
      // The bytes fetched from the sets' file systems show in every epoch's stats, on the read-ahead stage.
      open.forEach(st -> st.onRead(cache.counters()::addBytes));
      this.stores = List.copyOf(open);
      this.sampling = sampling;
      this.readAhead = b.readAhead;
    } catch (RuntimeException | Error t) {
      open.forEach(ShardStore::close);
      throw t;
    }
  }

  /** The columns of the sets' samples. */
  List<Column> columns() {
    return files.columns();
  }

  /** The files read and decoded so far. */
  int loads() {
    return cache.loads();
  }

  /** The bytes of shard files read from the sets' file systems so far. */
  long remoteBytes() {
    return stores.stream().mapToLong(ShardStore::bytesRead).sum();
  }

  /**
   * The engine of a provider named {@code providerName}, its batches laid out by {@code layouts}
   * and made by {@code batches}.
   *
   * @throws IllegalArgumentException if the layout's arrays are not the sets' columns, in order
   */
  <B extends AbstractBatch<B>> BatchEngine<B> engine(String providerName, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, @Nullable ShardSequences variable, @Nullable ImageDecoders images) {
    return engine(providerName, layouts, batches, variable, images, null);
  }

  /**
   * As the other, for a reader whose fields are known with their encodings ({@code fields}, a
   * generated sample's): the columns must be those fields, an encoded image where the sample
   * declares one.
   */
  <B extends AbstractBatch<B>> BatchEngine<B> engine(String providerName, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, @Nullable ShardSequences variable, @Nullable ImageDecoders images,
      @Nullable List<SampleSchema.Field> fields) {
    if (fields == null) {
      check(providerName, layouts.apply(1));
    } else {
      check(providerName, fields.stream().map(Column::new).toList());
    }
    if (variable == null && ShardSequences.any(files.columns())) {
      throw new IllegalArgumentException(providerName + " reads fixed-size arrays, but the shard set "
          + stores.get(0).directory() + " has columns with a variable axis");
    }
    if (images == null && ShardColumns.anyEncoded(files.columns())) {
      throw new IllegalArgumentException(providerName + " reads arrays as they are stored, but the shard set "
          + stores.get(0).directory() + " holds encoded images in " + files.columns().stream().filter(Column::encoded)
          .map(Column::name).toList() + ": read it with ShardProvider, which decodes and augments them");
    }
    ImageDecoder[] decoders = images == null ? new ImageDecoder[files.columns().size()]
        : images.decoders(ShardColumns.fields(files.columns()), files.samples(), "the shard set "
            + stores.get(0).directory());
    Rows rows = new Rows(files, cache, needs, readAhead, variable, decoders);
    BatchEngine.Builder<B> e = BatchEngine.<B>builder(providerName, order.length(), sampling)
        .layout(layouts)
        .batches(batches)
        .draws(order)
        .rows(rows)
        .feeding(cache.counters());
    if (variable != null && ShardSequences.any(files.columns())) {
      e.sequences(variable.sequences(files, rows::length));
    }
    return e.readers("shard-reader").build();
  }

  /**
   * Refuses a layout whose arrays are not the columns, in order, as far as the stored bytes go
   * (name, role, dtype and sample shape: {@link ShardColumns.Column#storage()}); the layout and
   * bound are the provider's own.
   */
  private void check(String providerName, BatchLayout layout) {
    List<Column> reads = new ArrayList<>();
    for (List<DataDesc> group : List.of(layout.data(), layout.label())) {
      for (DataDesc d : group) {
        reads.add(new Column(SampleSchema.Field.of(d)));
      }
    }
    check(providerName, reads);
  }

  private void check(String providerName, List<Column> reads) {
    String difference = ShardColumns.difference(reads, files.columns());
    if (difference != null) {
      throw new IllegalArgumentException(providerName + " reads arrays other than the columns of the shard set "
          + stores.get(0).directory() + ": " + difference + " (a provider reads a shard set whose arrays have its names,"
          + " roles, dtypes and sample shapes, in order; the set holds " + ShardColumns.storage(files.columns()) + ")");
    }
  }

  @Override
  public void close() {
    try {
      cache.close();
    } finally {
      stores.forEach(ShardStore::close);
    }
  }

  /**
   * Copies each row's sample from its decoded file (the file's own bytes, for a file served in place):
   * one bulk copy per array, the bytes as stored
   * (little-endian, the batch buffers' order on the machines ND4J runs on); a variable array's real
   * steps, then its padding to the batch's steps, and its group's length and mask.
   */
  private static final class Rows implements RowWriter {
    private static final int[] NONE = {};
    private final ShardFiles files;
    private final @Nullable ShardSequences variable;
    /** Per column, the decoder of its encoded images; null for a column copied as it is stored. */
    private final @Nullable ImageDecoder[] images;
    /** Per reader thread, the array an encoded image served in place is copied into for its decoder. */
    private final ThreadLocal<byte[]> scratch = ThreadLocal.withInitial(() -> new byte[1 << 16]);
    private final ShardSequences.@Nullable Padder[] padders;
    // Per length group, its first column: the one whose length the group's mask and lengths give.
    private final int[] roots;
    private final long[] firsts;
    private final int[] rowBytes;
    private final ShardCache cache;
    private final FileNeeds needs;
    private final int readAhead;
    @SuppressWarnings("unused")
    private int sink;

    Rows(ShardFiles files, ShardCache cache, FileNeeds needs, int readAhead, @Nullable ShardSequences variable,
        @Nullable ImageDecoder[] images) {
      this.files = files;
      this.variable = variable;
      this.images = images;
      List<Column> columns = files.columns();
      this.padders = new ShardSequences.Padder[columns.size()];
      int groups = 0;
      for (int c = 0; c < columns.size(); c++) {
        if (variable != null && columns.get(c).variable()) {
          padders[c] = new ShardSequences.Padder(columns.get(c), variable.padding(c));
          groups = Math.max(groups, variable.group(c) + 1);
        }
      }
      this.roots = new int[groups];
      Arrays.fill(roots, -1);
      for (int c = 0; c < columns.size(); c++) {
        int g = variable == null ? -1 : variable.group(c);
        if (g >= 0 && roots[g] < 0) {
          roots[g] = c;
        }
      }
      this.firsts = files.firsts();
      this.rowBytes = files.columns().stream().mapToInt(Column::rowBytes).toArray();
      this.cache = cache;
      this.needs = needs;
      this.readAhead = readAhead;
    }

    @Override
    public void write(int[] indices, int from, int to, Slot slot) {
      CollateTarget out = CollateTarget.of(slot);
      int arrays = rowBytes.length;
      ByteBuffer[] dst = new ByteBuffer[arrays];
      for (int a = 0; a < arrays; a++) {
        dst[a] = out.bytes(a);
      }
      long near = needs.near(slot.firstPosition() + from);
      FileNeeds.EpochUse use = needs.epoch(slot.epoch(), indices[from], near);
      // A row carried over from the last epoch is not where its batch is: the write then counts
      // from the epoch's start, which only keeps files longer.
      int start = Math.max(0, use.position(indices[from], near));
      int writer = needs.enter(slot.epoch(), start);
      Progress at = new Progress(use, slot.epoch(), writer, start - from, slot.seed(), new Held());
      try {
        write(indices, from, to, out, dst, at);
      } catch (InternalError fault) {
        throw cut(at.held, fault);
      } finally {
        at.held.release();
        needs.exit(writer);
      }
    }

    /**
     * The failure of a write that read a mapped file cut short under it (the JVM's error for a fault in
     * mapped memory), naming the files the write read: one of them was rewritten in place.
     */
    private RuntimeException cut(Held held, InternalError fault) {
      if (held.count == 0 || !String.valueOf(fault.getMessage()).contains("unsafe memory access")) {
        throw fault;
      }
      List<String> names = new ArrayList<>();
      for (int i = 0; i < held.count; i++) {
        names.add(where(held.files[i]));
      }
      return new FileFormatException(names.get(0), "a fault reading " + (names.size() == 1 ? "the file" : "one of "
          + names) + " (" + fault.getMessage() + "): a file was cut or rewritten in place while it was read; a shard"
          + " set's files must not change once written (ShardWriter writes a new set's files anew)", fault);
    }

    /**
     * Where a write is: its epoch's use, its writer slot, the position of row {@code r} as {@code
     * offset + r} (a batch's rows are consecutive positions of the epoch), and the files it copies from.
     */
    private record Progress(FileNeeds.EpochUse use, int epoch, int writer, int offset, long seed, Held held) {}

    /**
     * The files one write copies from, each retained once from the cache for the whole write and
     * released at its end (so a file the cache drops meanwhile keeps its bytes until then).
     */
    private static final class Held {
      private int[] files = new int[8];
      private ShardFile.@Nullable Decoded[] decoded = new ShardFile.Decoded[8];
      private int count;

      ShardFile.@Nullable Decoded find(int file) {
        for (int i = 0; i < count; i++) {
          if (files[i] == file) {
            return decoded[i];
          }
        }
        return null;
      }

      void add(int file, ShardFile.Decoded d) {
        if (count == files.length) {
          files = Arrays.copyOf(files, 2 * count);
          decoded = Arrays.copyOf(decoded, 2 * count);
        }
        files[count] = file;
        decoded[count++] = d;
      }

      void release() {
        for (int i = 0; i < count; i++) {
          java.util.Objects.requireNonNull(decoded[i]).release();
          decoded[i] = null;
        }
        count = 0;
      }
    }

    /** File {@code file}'s columns for row {@code r}: a file this write still waits for is loaded from where it is. */
    private ShardFile.Decoded columns(int file, int r, Progress at) {
      ShardFile.Decoded d = at.held.find(file);
      if (d != null) {
        return d;
      }
      d = cache.loaded(file);
      if (d == null) {
        needs.advance(at.writer, at.epoch, at.offset + r);
        d = cache.get(file);
      }
      at.held.add(file, d);
      return d;
    }

    private void write(int[] indices, int from, int to, CollateTarget out, ByteBuffer[] dst, Progress at) {
      FileNeeds.EpochUse use = at.use;
      int arrays = rowBytes.length;
      int touched = 0;
      int file = fileOf(indices[from]);
      ShardFile.Decoded columns = columns(file, from, at);
      int furthest = use.place()[file];
      for (int r = from; r < to; r++) {
        int row = (int) (indices[r] - firsts[file]);
        ShardFile.Decoded current = columns;
        int currentFile = file;
        if (r + 1 < to) {
          int next = fileOf(indices[r + 1]);
          if (next != file) {
            file = next;
            columns = columns(next, r + 1, at);
            furthest = Math.max(furthest, use.place()[next]);
          }
          // Touch the next sample's first bytes now, so its cache miss overlaps this copy: rows
          // drawn at random are each a miss the hardware prefetcher cannot foresee.
          int nextRow = (int) (indices[r + 1] - firsts[next]);
          // Clamped: an empty last value of a decoded binary column starts at its array's end.
          ByteBuffer first = columns.data(0);
          touched += first.get(Math.min(first.limit() - 1, columns.at(0, nextRow, rowBytes[0])));
        }
        for (int a = 0; a < arrays; a++) {
          ImageDecoder image = images[a];
          if (image != null) {
            decode(image, current, currentFile, row, a, indices[r], at, dst[a], r);
          } else if (padders[a] == null) {
            int n = rowBytes[a];
            dst[a].put(r * n, current.data(a), current.at(a, row, n), n);
          }
        }
        if (padders.length > 0 && roots.length > 0) {
          variableRow(current, currentFile, row, r, out);
        }
      }
      // Once per batch, not per row: the files after the furthest one this batch reached (a batch
      // of carried rows only, from another epoch, reaches none of this epoch's: -1), and past the
      // epoch's last file the next epoch's first ones, so that its first batch waits for none.
      int[] ahead = use.files();
      int[] next = furthest + readAhead >= ahead.length ? use.next(readAhead) : NONE;
      for (int k = 1; k <= readAhead; k++) {
        int f = furthest + k;
        if (f < ahead.length) {
          cache.prefetch(ahead[f]);
        } else if (f - ahead.length < next.length) {
          cache.prefetch(next[f - ahead.length]);
        }
      }
      if (touched == 0x5EED_0001) {
        sink = touched; // almost never: keeps the reads alive without a shared write per call
      }
    }

    /**
     * Decodes row {@code row} of encoded-image column {@code a} of a decoded file into batch row
     * {@code r}, its draws those of (seed, epoch, provider-wide sample), as an image provider draws
     * them for its record of that index.
     */
    private void decode(ImageDecoder image, ShardFile.Decoded d, int file, int row, int a, int sample, Progress at,
        ByteBuffer dst, int r) {
      int start = d.at(a, row, 0);
      int length = d.bytes(a, row);
      String column = files.columns().get(a).name();
      if (length == 0) {
        throw new FileFormatException(where(file), "row " + row + " (of the file), column '" + column + "': an empty"
            + " value; expected an encoded image (JPEG, PNG)");
      }
      ByteBuffer data = d.data(a);
      byte[] bytes;
      int offset;
      if (data.hasArray()) {
        bytes = data.array();
        offset = data.arrayOffset() + start;
      } else {
        // Served in place (a direct or mapped buffer): the decoder takes an array, so the image's
        // bytes are copied once into this thread's scratch; small beside decoding them.
        bytes = scratch(length);
        data.get(start, bytes, 0, length);
        offset = 0;
      }
      try {
        image.write(bytes, offset, length, at.seed, at.epoch, sample, dst, r);
      } catch (ImageDecoder.BadImageException e) {
        throw new FileFormatException(where(file), "row " + row + " (of the file), column '" + column + "': "
            + e.getMessage(), e.getCause());
      }
    }

    /** This thread's array for an encoded image of {@code length} bytes served in place. */
    private byte[] scratch(int length) {
      byte[] b = scratch.get();
      if (b.length < length) {
        b = new byte[Math.max(length, 2 * b.length)];
        scratch.set(b);
      }
      return b;
    }

    /**
     * Writes row {@code r}'s variable arrays from row {@code row} of a decoded file, padded to the
     * batch's steps, and each group's length and mask.
     */
    private void variableRow(ShardFile.Decoded d, int file, int row, int r, CollateTarget out) {
      ShardSequences v = java.util.Objects.requireNonNull(variable);
      for (int g = 0; g < roots.length; g++) {
        int root = roots[g];
        int stored = d.steps(root, row, rowBytes[root]);
        int len = v.clamp(g, stored, files.longest(root), where(file), row, files.columns().get(root).name());
        int skip = v.skip(g, stored, len);
        int steps = out.steps(g);
        for (int a = root; a < padders.length; a++) {
          ShardSequences.Padder p = padders[a];
          if (p == null || v.group(a) != g) {
            continue;
          }
          int own = a == root ? stored : d.steps(a, row, rowBytes[a]);
          if (own != stored) {
            throw new FileFormatException(where(file), "row " + row + " (of the file), column '" + files.columns().get(a)
                .name() + "': " + own + " steps, expected " + stored + " (the length of '" + files.columns().get(root)
                .name() + "', which it shares)");
          }
          p.write(d.data(a), d.at(a, row, 0), stored, skip, len, steps, out, a, r);
        }
        out.lengths(g).put(r, len);
        Collate.maskRow(out.mask(g), r * steps, len, steps);
      }
    }

    /**
     * The length of sample {@code sample} in group {@code g} after the group's bound, read from its
     * decoded file (loaded now if no one has): what the engine pads a batch by.
     */
    int length(int g, int sample) {
      ShardSequences v = java.util.Objects.requireNonNull(variable);
      int file = fileOf(sample);
      int row = (int) (sample - firsts[file]);
      int root = roots[g];
      ShardFile.Decoded d = cache.get(file);
      int stored;
      try {
        stored = d.steps(root, row, rowBytes[root]);
      } finally {
        d.release();
      }
      return v.clamp(g, stored, files.longest(root), where(file), row, files.columns().get(root).name());
    }

    private String where(int file) {
      return files.store(file).where(files.entry(file).name());
    }

    private int fileOf(int sample) {
      return files.fileOf(sample);
    }
  }

}
