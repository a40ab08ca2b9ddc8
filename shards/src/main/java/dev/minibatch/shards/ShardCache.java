package dev.minibatch.shards;

import dev.minibatch.runtime.internal.pipeline.HandOff;
import dev.minibatch.runtime.internal.pipeline.StageCounters;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The decoded shard files a provider holds: at most {@code capacity} files, those being loaded
 * included. A file is loaded by the first thread that needs it, or ahead of need by one read-ahead
 * thread ({@code minibatch-shard-read-ahead-0}, started by a {@link #prefetch} when none runs,
 * ending once the files asked for are loaded, stopped by {@link #close()}); threads that need a
 * file being loaded wait for that one load.
 *
 * <p>The read-ahead is a stage of the runtime's thread engine: its thread comes from {@link
 * Workers}, and the files asked for, the files held and the waits for a load all go through one
 * {@link HandOff}, whose lock guards this cache's state. Its counters ({@link #counters()}, stage
 * {@value #STAGE}) count the files loaded, the time spent reading and decoding them (by the
 * read-ahead thread, or by a batch that needed a file nobody had loaded), and as consumer wait the
 * time batches waited for a file: loading it themselves, or waiting for a load under way. The
 * provider's epochs show them in their stats.
 *
 * <p>When the cache is full, a file done with ({@link FileNeeds#lastUse its last use} below the
 * {@link FileNeeds#lowWater low water}) makes room. A load that a batch waits for always gets its
 * room (if no file is done with, the one needed latest goes); a read-ahead load only from a file
 * done with, else it is not asked for: read-ahead never drops a file the current window still
 * reads, so with a cache of at least what the windows span every file loads once per epoch. A
 * dropped file stays valid for a thread still copying from it (its bytes are unmapped or reused only
 * after the last such thread is done), so no reader ever sees a file change under it.
 *
 * <p>A local file (of the set, or a disk cache's copy) is mapped ({@link ShardStore#map}), its
 * checksum summed the first time only; a file of another store is read whole into a buffer taken
 * from {@link FileBuffers}, its checksum summed as it arrives; either is served in place from there
 * when it allows ({@link PagesInPlace}). The files handed out are counted references ({@link
 * ShardFile.Decoded#retain()}): the cache holds one per file it keeps, {@link #get} and {@link
 * #loaded} give the caller one more, which the caller releases when it has copied its rows. The last
 * release unmaps a mapped file or gives a buffer back to be read into again.
 */
final class ShardCache implements AutoCloseable {
  /** The read-ahead's stage name, in stats and its thread's name. */
  static final String STAGE = "shard-read-ahead";

  private final ShardFiles sources;
  private final @Nullable ShardDiskCache disk;
  private final List<Column> columns;
  private final int capacity;
  private final FileNeeds needs;
  // A few free arrays: a streaming epoch drops one file for each it loads, so the next load finds one.
  private final FileBuffers buffers = new FileBuffers(4);
  // Per file mapped, what identified its bytes when their checksum matched the index (length, time of
  // change, inode); null until then.
  private final AtomicReferenceArray<@Nullable Object> verified;
  private final StageCounters counters;
  private final HandOff handOff;
  // The state below is read and changed only inside the hand-off's calls (under its lock).
  private final Map<Integer, Load> files = new LinkedHashMap<>();
  private final ArrayDeque<Integer> ahead = new ArrayDeque<>();
  private @Nullable Workers reader;
  /** The files held, loading included, for the stats' queue depth (read without the lock). */
  private volatile int held;
  private final AtomicInteger loads = new AtomicInteger();
  // The loaded files, for a lookup without the lock (every row of a shuffled batch may be in another
  // file); set when a load completes, cleared when the file is dropped.
  private final AtomicReferenceArray<ShardFile.@Nullable Decoded> ready;

  /** One file's load: run by the thread that added it; done once it holds the file or a failure. */
  private static final class Load {
    final int file;
    ShardFile.@Nullable Decoded decoded;
    @Nullable Throwable failure;
    boolean done;
    /** The threads waiting for this load, each given a reference when it is done. */
    int waiters;

    Load(int file) {
      this.file = file;
    }
  }

  ShardCache(ShardFiles sources, int capacity, FileNeeds needs, @Nullable ShardDiskCache disk) {
    this.sources = sources;
    this.disk = disk;
    this.needs = needs;
    this.columns = sources.columns();
    this.capacity = capacity;
    this.ready = new AtomicReferenceArray<>(sources.size());
    this.verified = new AtomicReferenceArray<>(sources.size());
    this.counters = new StageCounters(STAGE, 1, capacity, () -> held);
    // Never finished: a wait ends when its load is done, or when the cache closes. Several threads
    // may wait (reader threads, the consumer), so waits do not spin (a load takes milliseconds).
    this.handOff = new HandOff(counters, 1, HandOff.OnFailure.AT_ONCE, 2);
  }

  /** The read-ahead stage's counters, over the cache's life. */
  StageCounters counters() {
    return counters;
  }

  /**
   * The columns of file {@code file}, loaded now if no one has; retained for the caller, who
   * releases them ({@link ShardFile.Decoded#release()}) once done copying.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException if the file is missing, cut or corrupt
   */
  ShardFile.Decoded get(int file) {
    ShardFile.Decoded loaded = loaded(file);
    if (loaded != null) {
      return loaded;
    }
    return load(file);
  }

  /**
   * The columns of file {@code file}, retained for the caller, if it is loaded, else null: what
   * {@link #get} returns at once.
   */
  ShardFile.@Nullable Decoded loaded(int file) {
    ShardFile.Decoded d = ready.get(file);
    // A file dropped between the look-up and the retain may have its buffer reused already: not it.
    return d != null && d.retain() ? d : null;
  }

  private ShardFile.Decoded load(int file) {
    Load mine = new Load(file);
    // A reference is taken under the lock: the cache releases its own only under it, so a file it
    // holds can be retained, and a load under way retains one for each of its waiters.
    Load l = handOff.locked(() -> {
      Load loading = files.get(file);
      if (loading == null) {
        makeRoom(false);
        return add(mine);
      }
      if (loading.done) {
        java.util.Objects.requireNonNull(loading.decoded).retain(); // a failed load is not held
      } else {
        loading.waiters++;
      }
      return loading;
    });
    if (l == mine) {
      // A load a batch waits for: its whole time is the batch's wait for the file.
      long t0 = System.nanoTime();
      run(l, true);
      counters.addConsumerWait(System.nanoTime() - t0);
    } else if (handOff.takeUninterruptibly(() -> l.done ? l : null) == null) {
      // Closed while another thread loaded it: read it here, outside the cache (the reference that load
      // keeps for this thread is never released; its buffer is left to the garbage collector).
      return decode(file);
    }
    Throwable failure = l.failure;
    if (failure instanceof RuntimeException r) {
      throw r;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    return java.util.Objects.requireNonNull(l.decoded);
  }

  /**
   * Asks the read-ahead thread to load {@code file} unless it is held or loading, or the cache is
   * full of files still needed (then a later batch asks again).
   */
  void prefetch(int file) {
    handOff.locked(() -> {
      if (handOff.isClosed() || files.containsKey(file) || ahead.contains(file)
          || (files.size() >= capacity && victim(true, needs.lowWater()) < 0)) {
        return Boolean.FALSE;
      }
      ahead.add(file);
      if (reader == null) {
        Workers w = new Workers(STAGE);
        w.start(this::readAhead);
        reader = w;
      }
      return Boolean.TRUE;
    });
  }

  /** The files loaded so far (each load reads and decodes a whole file). */
  int loads() {
    return loads.get();
  }

  /**
   * Loads the files asked for, then ends: the next {@link #prefetch} starts another thread, so none
   * waits while no epoch reads (an iterator dropped mid-epoch leaves no thread behind).
   */
  private void readAhead() {
    Load next;
    while ((next = handOff.locked(this::nextAhead)) != null) {
      run(next, false);
    }
  }

  /** The next file to read ahead, claimed by the calling thread, or null to end it; under the lock. */
  private @Nullable Load nextAhead() {
    while (true) {
      Integer file = ahead.poll();
      if (file == null || handOff.isClosed() || Thread.currentThread().isInterrupted()) {
        if (!handOff.isClosed()) {
          reader = null;
        }
        return null;
      }
      // A request made before a batch loaded the file itself, used it and let it go is stale: a file
      // the epochs are done with is not read again for nobody.
      if (!files.containsKey(file) && needs.lastUse(file) >= needs.lowWater() && makeRoom(true)) {
        return add(new Load(file));
      }
    }
  }

  /** Holds {@code l}; under the lock. */
  private Load add(Load l) {
    files.put(l.file, l);
    held = files.size();
    return l;
  }

  /**
   * Reads and decodes the file of {@code l}, a load the calling thread claimed, and wakes its waiters;
   * {@code forCaller}: retained once more for the calling thread, which copies from it next.
   */
  private void run(Load l, boolean forCaller) {
    long t0 = System.nanoTime();
    ShardFile.@Nullable Decoded decoded = null;
    Throwable failure = null;
    try {
      decoded = decode(l.file);
      if (forCaller) {
        decoded.retain();
      }
      // Counted before anyone can see the file, so a reader that got it also sees it counted.
      loads.incrementAndGet();
      counters.addItems(1);
    } catch (RuntimeException | Error t) {
      failure = t;
    }
    counters.addBusy(System.nanoTime() - t0);
    ShardFile.Decoded d = decoded;
    Throwable f = failure;
    handOff.offer(() -> {
      if (d != null) {
        for (int i = 0; i < l.waiters; i++) {
          d.retain();
        }
      }
      l.decoded = d;
      l.failure = f;
      l.done = true;
      if (files.get(l.file) == l) {
        if (d != null) {
          ready.set(l.file, d);
        } else {
          // A failed load is forgotten: the next batch that needs the file tries again.
          files.remove(l.file);
          held = files.size();
        }
      } else if (d != null) {
        d.release(); // the cache closed while it loaded: it holds the file no more
      }
      return true;
    });
  }

  /**
   * Reads and decodes {@code file}: from its store, its checksum checked here; or through the disk
   * cache, which checks a file as it arrives and trusts its copies. A copy that does not decode was
   * damaged on the local disk after it arrived: it is deleted and the file fetched once more.
   */
  private ShardFile.Decoded decode(int file) {
    ShardIndex.Entry e = sources.entry(file);
    ShardStore store = sources.store(file);
    if (Unmapping.AVAILABLE) {
      java.io.File local = disk == null ? store.localFile(e.name()) : null;
      if (local != null) {
        return mapped(file, e, store.map(e.name(), e.bytes(), local), false);
      }
      ShardStore.Mapped copy = disk != null ? disk.map(store, e) : null;
      if (copy != null) {
        try {
          return mapped(file, e, copy, true);
        } catch (dev.minibatch.runtime.io.FileFormatException damaged) {
          // Damaged on the local disk after it arrived (a copy is trusted): deleted, and fetched again below.
          disk.discard(store, e);
        }
      }
    }
    java.nio.ByteBuffer bytes = buffers.take(store.checkedLength(e.name(), e.bytes()));
    boolean kept = false;
    try {
      ShardFile.Decoded d = decode(file, e, store, bytes);
      if (d.inPlace()) {
        kept = true;
        return d.owning(() -> buffers.give(bytes));
      }
      return d;
    } finally {
      if (!kept) {
        buffers.give(bytes); // decoded into arrays of its own, or failed: the file's bytes are not read again
      }
    }
  }

  /**
   * Decodes file {@code file} from its mapping {@code m} (a set's local file, or a disk cache's copy):
   * its bytes are the page cache's, not copied. A set's file has its checksum summed the first time,
   * and again only if the file changed since (its length, time of change or inode): a file whose bytes
   * were checked once is not summed every epoch; a copy ({@code trusted}) was checked as it arrived.
   * Unmapped when the last batch copying from it is done, or at once if it decoded into arrays.
   */
  private ShardFile.Decoded mapped(int file, ShardIndex.Entry e, ShardStore.Mapped m, boolean trusted) {
    boolean kept = false;
    try {
      java.nio.ByteBuffer b = m.bytes();
      Object identity = m.identity();
      if (!trusted && (identity == null || !identity.equals(verified.get(file)))) {
        int crc = ShardFile.crc32c(b);
        if (crc != e.crc32c()) {
          throw ShardFile.corrupt(b, e, columns, where(file), crc);
        }
        verified.set(file, identity);
      }
      ShardFile.Decoded d = ShardFile.decode(b, e, columns, where(file), true);
      if (d.inPlace()) {
        kept = true;
        return d.owning(m::unmap);
      }
      return d;
    } catch (InternalError fault) {
      // The JVM's error for a fault in mapped memory: the file was cut short under the mapping.
      throw new dev.minibatch.runtime.io.FileFormatException(where(file), "a fault reading the mapped file ("
          + fault.getMessage() + "): it was cut or rewritten in place while it was read; a shard set's files must not"
          + " change once written", fault);
    } finally {
      if (!kept) {
        m.unmap();
      }
    }
  }

  /** Reads {@code e} into {@code bytes} and decodes it from there. */
  private ShardFile.Decoded decode(int file, ShardIndex.Entry e, ShardStore store, java.nio.ByteBuffer bytes) {
    java.nio.ByteBuffer b = bytes.slice(0, (int) e.bytes());
    if (disk == null) {
      int crc = store.read(e.name(), e.bytes(), bytes);
      if (crc != e.crc32c()) {
        throw ShardFile.corrupt(b, e, columns, where(file), crc);
      }
      return ShardFile.decode(b, e, columns, where(file), true);
    }
    ShardDiskCache.Copy copy = disk.get(store, e, bytes);
    try {
      return ShardFile.decode(b, e, columns, where(file), true);
    } catch (dev.minibatch.runtime.io.FileFormatException damaged) {
      if (!copy.trusted()) {
        throw damaged;
      }
      disk.discard(store, e);
      disk.get(store, e, bytes);
      return ShardFile.decode(b, e, columns, where(file), true);
    }
  }

  private String where(int file) {
    return sources.store(file).where(sources.entry(file).name());
  }

  /**
   * Drops loaded files until one more fits ({@link #victim}). Files being loaded are never dropped.
   * Returns whether one more file fits now. Under the lock.
   */
  private boolean makeRoom(boolean ahead) {
    long low = needs.lowWater();
    while (files.size() >= capacity) {
      int victim = victim(ahead, low);
      if (victim < 0) {
        return false;
      }
      Load dropped = files.remove(victim);
      held = files.size();
      ready.set(victim, null);
      if (dropped.decoded != null) {
        dropped.decoded.release(); // the buffer is reused once the batches copying from it are done
      }
    }
    return true;
  }

  /**
   * The loaded file to drop for one more: one done with (last use below {@code low}), the earliest
   * done first; for a load a batch waits for, else the file needed latest (read ahead for a later
   * window, most likely); for a read-ahead load ({@code ahead}), else none (-1). Under the lock.
   */
  private int victim(boolean ahead, long low) {
    int done = -1;
    long earliest = Long.MAX_VALUE;
    int later = -1;
    long latest = Long.MIN_VALUE;
    for (Map.Entry<Integer, Load> e : files.entrySet()) {
      if (!e.getValue().done) {
        continue;
      }
      long last = needs.lastUse(e.getKey());
      if (last < low && last < earliest) {
        done = e.getKey();
        earliest = last;
      } else if (last >= low && last > latest) {
        later = e.getKey();
        latest = last;
      }
    }
    return done >= 0 ? done : ahead ? -1 : later;
  }

  @Override
  public void close() {
    Workers[] w = new Workers[1];
    handOff.close(() -> {
      w[0] = reader;
      reader = null;
      for (Load l : files.values()) {
        if (l.done && l.decoded != null) {
          l.decoded.release();
        }
      }
      files.clear();
      ahead.clear();
      held = 0;
      for (int i = 0; i < ready.length(); i++) {
        ready.set(i, null);
      }
    });
    if (w[0] != null) {
      w[0].stop();
    }
    buffers.clear();
    counters.ended();
  }
}
