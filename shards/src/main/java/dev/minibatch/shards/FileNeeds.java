package dev.minibatch.shards;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * Which shard files the batches still need, so that the cache drops only files an epoch is done
 * with and read-ahead never takes the place of a file the current window still reads.
 *
 * <p>Per epoch it knows each file's place in the order the epoch first reads the files (what
 * read-ahead follows), the last position of the epoch that reads it, and each sample's position.
 * Writers say which position they are writing ({@link #enter}/{@link #exit}); the lowest position
 * still being written, or the furthest begun when none is, is the <em>low water</em>: a file whose
 * last use lies below it is done. Positions are compared as keys {@code (epoch << 32) | position},
 * so a file the newest epoch does not read stays until every writer has left the epoch that does.
 *
 * <p>An epoch's tables cost one int per sample and per file; the two newest epochs are kept (reader
 * threads may write the end of one epoch while others begin the next).
 */
final class FileNeeds {
  private static final long FREE = Long.MAX_VALUE;

  private final MixOrder order;
  private final ShardFiles files;
  private final int samples;
  private final AtomicLongArray writing;
  private final AtomicLong begun = new AtomicLong(-1);
  private volatile @Nullable EpochUse latest;
  private volatile @Nullable EpochUse previous;

  /**
   * Epoch {@code epoch}'s files in the order it first reads them; per file its place in that
   * order and its last position ({@code -1} for a file the epoch does not read); per sample its
   * first position ({@code -1} if not drawn).
   */
  record EpochUse(int epoch, int[] files, int[] place, int[] lastUse, int[] positionOf) {}

  /**
   * @param samples the samples of all sets (the provider-wide sample indices are below it)
   * @param writers how many threads may write batches at once, at least 1
   */
  FileNeeds(MixOrder order, ShardFiles files, long samples, int writers) {
    this.order = order;
    this.files = files;
    this.samples = (int) samples;
    // One slot more than the writers: a provider's consumer may plan a batch while readers write.
    this.writing = new AtomicLongArray(writers + 1);
    for (int i = 0; i < writing.length(); i++) {
      writing.set(i, FREE);
    }
  }

  /** The use of epoch {@code e}, computed once per epoch. */
  EpochUse epoch(int e) {
    EpochUse l = latest;
    if (l != null && l.epoch == e) {
      return l;
    }
    EpochUse p = previous;
    if (p != null && p.epoch == e) {
      return p;
    }
    synchronized (this) {
      l = latest;
      if (l != null && l.epoch == e) {
        return l;
      }
      p = previous;
      if (p != null && p.epoch == e) {
        return p;
      }
      EpochUse made = make(e);
      if (l == null || e > l.epoch) {
        previous = l;
        latest = made;
      } else {
        previous = made;
      }
      return made;
    }
  }

  private EpochUse make(int e) {
    int[] draws = new int[order.length()];
    order.fill(e, draws);
    int fileCount = files.size();
    int[] place = new int[fileCount];
    int[] lastUse = new int[fileCount];
    int[] positionOf = new int[samples];
    Arrays.fill(place, -1);
    Arrays.fill(lastUse, -1);
    Arrays.fill(positionOf, -1);
    int[] firstRead = new int[fileCount];
    int k = 0;
    for (int p = 0; p < draws.length; p++) {
      int sample = draws[p];
      int f = files.fileOf(sample);
      if (place[f] < 0) {
        place[f] = k;
        firstRead[k++] = f;
      }
      lastUse[f] = p;
      if (positionOf[sample] < 0) {
        positionOf[sample] = p;
      }
    }
    return new EpochUse(e, Arrays.copyOf(firstRead, k), place, lastUse, positionOf);
  }

  /**
   * Marks that the calling thread now writes from position {@code position} of epoch {@code
   * epoch}; returns the slot to hand to {@link #exit}, or -1 if every slot is taken (then the
   * write is not tracked and the low water only errs low, keeping files longer).
   */
  int enter(int epoch, int position) {
    long key = key(epoch, position);
    begun.accumulateAndGet(key, Math::max);
    for (int i = 0; i < writing.length(); i++) {
      if (writing.get(i) == FREE && writing.compareAndSet(i, FREE, key)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Marks that the write {@link #enter} gave {@code slot} has reached position {@code position}
   * of epoch {@code epoch}: a file it no longer reads may go now.
   */
  void advance(int slot, int epoch, int position) {
    if (slot >= 0) {
      long key = key(epoch, position);
      writing.set(slot, key);
      begun.accumulateAndGet(key, Math::max);
    }
  }

  /** Marks the write that {@link #enter} gave {@code slot} as done. */
  void exit(int slot) {
    if (slot >= 0) {
      writing.set(slot, FREE);
    }
  }

  /** The lowest position being written, or the furthest begun when no write is under way. */
  long lowWater() {
    long low = FREE;
    for (int i = 0; i < writing.length(); i++) {
      low = Math.min(low, writing.get(i));
    }
    return low == FREE ? begun.get() : low;
  }

  /**
   * The key of the last position that reads file {@code file} in the newest epochs known, or -1 if
   * none reads it (or no epoch has begun): below the low water, the file is done.
   */
  long lastUse(int file) {
    EpochUse l = latest;
    if (l != null && l.lastUse[file] >= 0) {
      return key(l.epoch, l.lastUse[file]);
    }
    EpochUse p = previous;
    if (p != null && p.lastUse[file] >= 0) {
      return key(p.epoch, p.lastUse[file]);
    }
    return -1;
  }

  static long key(int epoch, int position) {
    return ((long) epoch << 32) | (position & 0xFFFF_FFFFL);
  }
}
