package dev.minibatch.shards;

import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
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
 * <p>When the cache is full, a file done with ({@link FileNeeds#lastUse its last use} below the
 * {@link FileNeeds#lowWater low water}) makes room. A load that a batch waits for always gets its
 * room (if no file is done with, the one needed latest goes); a read-ahead load only from a file
 * done with, else it is not asked for: read-ahead never drops a file the current window still
 * reads, so with a cache of at least what the windows span every file loads once per epoch. A
 * dropped file stays valid for a thread still copying from it (the garbage collector frees it
 * after), so no reader ever sees a file change under it.
 */
final class ShardCache implements AutoCloseable {
  private final ShardFiles sources;
  private final List<Column> columns;
  private final int capacity;
  private final FileNeeds needs;
  private final Map<Integer, CompletableFuture<ShardFile.Decoded>> files = new LinkedHashMap<>();
  private final BlockingQueue<Integer> ahead = new LinkedBlockingQueue<>();
  private final AtomicInteger loads = new AtomicInteger();
  // The loaded files, for a lookup without the lock (every row of a shuffled batch may be in another
  // file); set when a load completes, cleared when the file is dropped.
  private final AtomicReferenceArray<ShardFile.@Nullable Decoded> ready;
  private @Nullable Workers reader;
  private boolean closed;

  ShardCache(ShardFiles sources, int capacity, FileNeeds needs) {
    this.sources = sources;
    this.needs = needs;
    this.columns = sources.columns();
    this.capacity = capacity;
    this.ready = new AtomicReferenceArray<>(sources.size());
  }

  /**
   * The columns of file {@code file}, loaded now if no one has.
   *
   * @throws dev.minibatch.runtime.io.FileFormatException if the file is missing, cut or corrupt
   */
  ShardFile.Decoded get(int file) {
    ShardFile.Decoded loaded = ready.get(file);
    if (loaded != null) {
      return loaded;
    }
    return load(file);
  }

  /** The columns of file {@code file} if it is loaded, else null: what {@link #get} returns at once. */
  ShardFile.@Nullable Decoded loaded(int file) {
    return ready.get(file);
  }

  private ShardFile.Decoded load(int file) {
    CompletableFuture<ShardFile.Decoded> f;
    boolean mine = false;
    synchronized (this) {
      f = files.get(file);
      if (f == null) {
        makeRoom(false);
        f = new CompletableFuture<>();
        files.put(file, f);
        mine = true;
      }
    }
    if (mine) {
      load(file, f);
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /**
   * Loads {@code file} on the read-ahead thread unless it is held or loading, or the cache is full
   * of files still needed (then a later batch asks again).
   */
  void prefetch(int file) {
    synchronized (this) {
      if (closed || files.containsKey(file) || ahead.contains(file)
          || (files.size() >= capacity && victim(true, needs.lowWater()) < 0)) {
        return;
      }
      ahead.add(file);
      if (reader == null) {
        Workers w = new Workers("shard-read-ahead");
        w.start(this::readAhead);
        reader = w;
      }
    }
  }

  /** The files loaded so far (each load reads and decodes a whole file). */
  int loads() {
    return loads.get();
  }

  /**
   * Loads the queued files, then ends: the next {@link #prefetch} starts another thread, so none
   * waits while no epoch reads (an iterator dropped mid-epoch leaves no thread behind).
   */
  private void readAhead() {
    while (true) {
      CompletableFuture<ShardFile.Decoded> f;
      int file;
      synchronized (this) {
        Integer next = ahead.poll();
        if (next == null || closed || Thread.currentThread().isInterrupted()) {
          if (!closed) {
            reader = null;
          }
          return;
        }
        file = next;
        if (files.containsKey(file) || !makeRoom(true)) {
          continue;
        }
        f = new CompletableFuture<>();
        files.put(file, f);
      }
      load(file, f);
    }
  }

  private void load(int file, CompletableFuture<ShardFile.Decoded> f) {
    try {
      ShardIndex.Entry e = sources.entry(file);
      ShardStore store = sources.store(file);
      String where = store.where(e.name());
      ShardFile.Decoded decoded = ShardFile.decode(store.readFully(e.name(), e.bytes()), e, columns, where);
      // Counted before anyone can see the file, so a reader that got it also sees it counted.
      loads.incrementAndGet();
      synchronized (this) {
        if (files.get(file) == f) {
          ready.set(file, decoded);
        }
      }
      f.complete(decoded);
    } catch (RuntimeException | Error t) {
      f.completeExceptionally(t);
      synchronized (this) {
        files.remove(file, f);
      }
    }
  }

  /**
   * Drops loaded files until one more fits ({@link #victim}). Files being loaded are never dropped.
   * Returns whether one more file fits now.
   */
  private boolean makeRoom(boolean ahead) {
    long low = needs.lowWater();
    while (files.size() >= capacity) {
      int victim = victim(ahead, low);
      if (victim < 0) {
        return false;
      }
      files.remove(victim);
      ready.set(victim, null);
    }
    return true;
  }

  /**
   * The loaded file to drop for one more: one done with (last use below {@code low}), the earliest
   * done first; for a load a batch waits for, else the file needed latest (read ahead for a later
   * window, most likely); for a read-ahead load ({@code ahead}), else none (-1).
   */
  private int victim(boolean ahead, long low) {
    int done = -1;
    long earliest = Long.MAX_VALUE;
    int later = -1;
    long latest = Long.MIN_VALUE;
    for (Map.Entry<Integer, CompletableFuture<ShardFile.Decoded>> e : files.entrySet()) {
      if (!e.getValue().isDone()) {
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
    Workers w;
    synchronized (this) {
      closed = true;
      w = reader;
      reader = null;
      files.clear();
      for (int i = 0; i < ready.length(); i++) {
        ready.set(i, null);
      }
    }
    ahead.clear();
    if (w != null) {
      w.stop();
    }
  }
}
