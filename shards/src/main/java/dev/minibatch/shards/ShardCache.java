package dev.minibatch.shards;

import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.Iterator;
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
 * The decoded shard files a provider holds: at most {@code capacity} files (plus those being
 * loaded), the first loaded dropped first (an epoch walks its files in order, so the oldest is the
 * one done with). A file is loaded by the first thread that needs
 * it, or ahead of need by one read-ahead thread ({@code minibatch-shard-read-ahead-0}, started on
 * the first {@link #prefetch}, stopped by {@link #close()}); threads that need a file being loaded
 * wait for that one load. A dropped file stays valid for a thread still copying from it (the
 * garbage collector frees it after), so no reader ever sees a file change under it.
 */
final class ShardCache implements AutoCloseable {
  private final ShardFiles sources;
  private final List<Column> columns;
  private final int capacity;
  private final Map<Integer, CompletableFuture<ShardFile.Decoded>> files = new LinkedHashMap<>();
  private final BlockingQueue<Integer> ahead = new LinkedBlockingQueue<>();
  private final AtomicInteger loads = new AtomicInteger();
  // The loaded files, for a lookup without the lock (every row of a shuffled batch may be in another
  // file); set when a load completes, cleared when the file is dropped.
  private final AtomicReferenceArray<ShardFile.@Nullable Decoded> ready;
  private @Nullable Workers reader;
  private boolean closed;

  ShardCache(ShardFiles sources, int capacity) {
    this.sources = sources;
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
    CompletableFuture<ShardFile.Decoded> f;
    boolean mine = false;
    synchronized (this) {
      f = files.get(file);
      if (f == null) {
        f = new CompletableFuture<>();
        files.put(file, f);
        mine = true;
        trim();
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

  /** Loads {@code file} on the read-ahead thread unless it is held or loading. */
  void prefetch(int file) {
    synchronized (this) {
      if (closed || files.containsKey(file) || ahead.contains(file)) {
        return;
      }
      if (reader == null) {
        Workers w = new Workers("shard-read-ahead");
        w.start(this::readAhead);
        reader = w;
      }
    }
    ahead.add(file);
  }

  /** The files loaded so far (each load reads and decodes a whole file). */
  int loads() {
    return loads.get();
  }

  private void readAhead() {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        int file = ahead.take();
        CompletableFuture<ShardFile.Decoded> f;
        synchronized (this) {
          if (closed || files.containsKey(file)) {
            continue;
          }
          f = new CompletableFuture<>();
          files.put(file, f);
          trim();
        }
        load(file, f);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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

  /** Drops the earliest loaded files beyond the capacity. */
  private void trim() {
    int excess = files.size() - capacity;
    for (Iterator<Map.Entry<Integer, CompletableFuture<ShardFile.Decoded>>> it = files.entrySet().iterator();
        excess > 0 && it.hasNext(); ) {
      Map.Entry<Integer, CompletableFuture<ShardFile.Decoded>> e = it.next();
      if (e.getValue().isDone()) {
        it.remove();
        ready.set(e.getKey(), null);
        excess--;
      }
    }
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
