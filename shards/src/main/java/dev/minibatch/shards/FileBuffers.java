package dev.minibatch.shards;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The buffers shard files are read into, reused: a file served in place keeps its buffer while the
 * cache holds it and batches copy from it, then gives it back ({@link ShardFile.Decoded#release()}),
 * and the next file read takes it. Reuse spares each load a new buffer of the file's size, which is
 * zeroed and mapped by the operating system page by page before the read can fill it (for a file of
 * 75 MB, longer than reading it). The buffers are direct, so that a local file is read into one with
 * a single copy from the page cache (into a heap array, Java copies through a native buffer). At most
 * {@code keep} free buffers are kept; one given back beyond them is left to the garbage collector, so
 * the buffers held are the cache's, those batches still copy from, and these few.
 */
final class FileBuffers {
  private final int keep;
  // Guarded by this.
  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();

  FileBuffers(int keep) {
    this.keep = keep;
  }

  /**
   * A free buffer of at least {@code length} bytes (the smallest such), or a new one ({@link #size});
   * its first {@code length} bytes are what the caller reads and writes.
   */
  synchronized ByteBuffer take(int length) {
    ByteBuffer best = null;
    for (ByteBuffer b : free) {
      if (b.capacity() >= length && (best == null || b.capacity() < best.capacity())) {
        best = b;
      }
    }
    if (best != null) {
      free.remove(best);
      return best;
    }
    return ByteBuffer.allocateDirect(size(length));
  }

  /**
   * The size of a new buffer for a file of {@code length} bytes: rounded up (to a power of two below
   * 1 MiB, else to whole MiB), so that it fits the set's other files, whose sizes differ by a few
   * bytes of metadata.
   */
  static int size(int length) {
    if (length <= 1 << 20) {
      return Math.max(1024, Integer.highestOneBit(Math.max(1, length - 1)) << 1);
    }
    long mib = ((long) length + (1 << 20) - 1) >>> 20;
    return (int) Math.min(Integer.MAX_VALUE - 16, mib << 20);
  }

  /** Gives back {@code buffer}, which no one reads any more; beyond {@code keep}, the smallest goes. */
  synchronized void give(ByteBuffer buffer) {
    if (free.size() >= keep) {
      ByteBuffer smallest = buffer;
      for (ByteBuffer b : free) {
        if (b.capacity() < smallest.capacity()) {
          smallest = b;
        }
      }
      if (smallest == buffer) {
        return;
      }
      free.remove(smallest);
    }
    free.add(buffer);
  }

  /** Drops every free buffer (the provider is closing). */
  synchronized void clear() {
    free.clear();
  }
}
