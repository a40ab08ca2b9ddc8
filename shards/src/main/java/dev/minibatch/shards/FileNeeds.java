package dev.minibatch.shards;

import dev.minibatch.runtime.spi.EpochDraws;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * Which shard files the batches still need, so that the cache drops only files an epoch is done
 * with and read-ahead never takes the place of a file the current window still reads.
 *
 * <p>Per epoch it knows each file's place in the order the epoch first reads the files (what
 * read-ahead follows), the last position of the epoch that reads it, and the epoch's order, in
 * which a write finds its first row near the position its batch gives.
 * Writers say which position they are writing ({@link #enter}/{@link #exit}); the lowest position
 * still being written, or the furthest begun when none is, is the <em>low water</em>: a file whose
 * last use lies below it is done. Positions are compared as keys {@code (epoch << 32) | position},
 * so a file the newest epoch does not read stays until every writer has left the epoch that does.
 *
 * <p>An epoch's tables cost a few ints per file (and, while they are made, two per file for each
 * stretch of the epoch scanned in parallel); the epoch's order is the engine's own array. The two
 * newest epochs are kept (reader threads may write the end of one epoch while others begin the
 * next).
 *
 * <p>A trainer that reads its share ({@link PartitionOrder}, {@code k} trainers) writes every
 * {@code k}-th batch of the epoch only: its files, their places and last uses count those batches'
 * positions, so it reads ahead and keeps only its own files. Which of the {@code k} classes of
 * batches it writes in an epoch (its rank, shifted in a restored epoch by the batches dealt before
 * the state was saved) is learnt from the first batch it writes there.
 */
final class FileNeeds {
  private static final long FREE = Long.MAX_VALUE;

  private final EpochDraws order;
  private final ShardFiles files;
  private final int parts;
  private final int batch;
  private final long partStart;
  private final long nextFirst;
  /** How far from its batch's position a row is looked for in the draws: a batch. */
  private final int reach;
  private final AtomicLongArray writing;
  private final AtomicLong begun = new AtomicLong(-1);
  private volatile @Nullable EpochUse latest;
  private volatile @Nullable EpochUse previous;
  private final @Nullable SharedDraws shared;

  /**
   * Epoch {@code epoch}'s files in the order it first reads them; per file its place in that
   * order and its last position ({@code -1} for a file the epoch does not read); and where in the
   * epoch's order a sample is ({@link #position}). For a trainer reading its share, the files,
   * places and last uses are those of its batches; the positions are the epoch's.
   */
  static final class EpochUse {
    private final int epoch;
    private final EpochDraws from;
    private final int[] files;
    private final int[] place;
    private final int[] lastUse;
    private final int[] draws;
    private final int reach;
    private final long nextFirst;
    // The next epoch's first files, once read-ahead asked for them (see next).
    private volatile int @Nullable [] next;

    EpochUse(int epoch, EpochDraws from, int[] files, int[] place, int[] lastUse, int[] draws, int reach,
        long nextFirst) {
      this.epoch = epoch;
      this.from = from;
      this.files = files;
      this.place = place;
      this.lastUse = lastUse;
      this.draws = draws;
      this.reach = reach;
      this.nextFirst = nextFirst;
    }

    /** The files in the order the epoch first reads them. */
    int[] files() {
      return files;
    }

    /** Per file, its place in {@link #files()}, or -1. */
    int[] place() {
      return place;
    }

    /**
     * The position in the epoch's order ({@code draws}) of sample {@code sample}, which its batch
     * says is at {@code near}, or -1 if it is not within {@code reach} of it: the batch's position
     * is off by less than a batch (the engine's plan counts the rows carried into the epoch, or
     * skips those padded out of the last one), so a row further off is not this epoch's (a row
     * carried in from the last one). Nearest first: a sample drawn twice is where its batch is.
     */
    static int position(int[] draws, int sample, long near, int reach) {
      int n = draws.length;
      if (n == 0) {
        return -1;
      }
      int h = (int) Math.max(0, Math.min(near, n - 1));
      for (int d = 0; d <= reach && (h - d >= 0 || h + d < n); d++) {
        if (h - d >= 0 && draws[h - d] == sample) {
          return h - d;
        }
        if (h + d < n && draws[h + d] == sample) {
          return h + d;
        }
      }
      return -1;
    }

    /** {@link #position(int[], int, long, int)} in this epoch's draws. */
    int position(int sample, long near) {
      return position(draws, sample, near, reach);
    }

    /**
     * At most {@code count} of the files the next epoch reads first from where this trainer starts
     * it, for read-ahead to load while this epoch ends (the next epoch's first batch then waits for
     * none): known for one set read whole ({@link MixOrder#firstFiles}); none for a mix or a trainer
     * reading its share. Once asked for, they count as needed by the next epoch's start ({@link
     * FileNeeds#lastUse}).
     */
    int[] next(int count) {
      int[] n = next;
      if (n == null) {
        n = from instanceof MixOrder m ? m.firstFiles(epoch + 1, nextFirst, count) : new int[0];
        next = n;
      }
      return n;
    }

    /** Whether {@link #next} named {@code file}. */
    boolean nextReads(int file) {
      int[] n = next;
      if (n != null) {
        for (int f : n) {
          if (f == file) {
            return true;
          }
        }
      }
      return false;
    }
  }

  /**
   * @param order the epoch order; a {@link SharedDraws} (what the engine draws from) hands over the
   *     order the engine drew, so that an epoch is drawn once
   * @param writers how many threads may write batches at once, at least 1
   * @param parts the trainers that share the epoch's batches in turn, each reading its own files
   *     ({@link PartitionOrder}); 1 for a trainer that may read any file
   * @param batch the rows of a global batch (how far a batch's epoch position may be from its
   *     first row's place in the draws, and with {@code parts > 1} which trainer writes it)
   * @param partStart where this trainer's batch positions start in the epoch order: 0, or the
   *     start of its block for a part cut from the order's positions ({@code elasticShards(false)})
   * @param nextFirst the position in the epoch order at which this trainer starts an epoch (the
   *     next epoch's files from there are read ahead at an epoch's end), or -1 for none
   */
  FileNeeds(EpochDraws order, ShardFiles files, int writers, int parts, int batch, long partStart, long nextFirst) {
    this.order = order;
    this.shared = order instanceof SharedDraws s ? s : null;
    this.files = files;
    this.parts = parts;
    this.batch = batch;
    this.partStart = partStart;
    this.nextFirst = nextFirst;
    this.reach = Math.max(1, batch);
    // One slot more than the writers: a provider's consumer may plan a batch while readers write.
    this.writing = new AtomicLongArray(writers + 1);
    for (int i = 0; i < writing.length(); i++) {
      writing.set(i, FREE);
    }
  }

  /**
   * The position in the epoch order of a row at position {@code planned} of this trainer's plan
   * (the global plan's when dealt), counted from its block's start for a part cut from the order.
   */
  long near(long planned) {
    return partStart == 0 ? planned : (partStart + planned) % order.length();
  }

  /**
   * The use of epoch {@code e}, computed once per epoch, by the first write of it: {@code sample}
   * is the first row that write writes, at about epoch position {@code near} (for a trainer
   * reading its share, its position says which batches are the trainer's).
   */
  EpochUse epoch(int e, int sample, long near) {
    // The order the engine reads now: a state restored with another seed reseeds it, and an epoch
    // planned from the old order would read (and keep) the old order's files.
    EpochDraws now = shared != null ? shared.current() : order;
    EpochUse l = latest;
    if (l != null && l.epoch == e && l.from == now) {
      return l;
    }
    EpochUse p = previous;
    if (p != null && p.epoch == e && p.from == now) {
      return p;
    }
    synchronized (this) {
      l = latest;
      if (l != null && l.epoch == e && l.from == now) {
        return l;
      }
      p = previous;
      if (p != null && p.epoch == e && p.from == now) {
        return p;
      }
      EpochUse made = make(e, sample, near, now);
      if (l == null || l.from != now) {
        previous = null;
        latest = made;
      } else if (e > l.epoch) {
        previous = l;
        latest = made;
      } else {
        previous = made;
      }
      return made;
    }
  }

  private EpochUse make(int e, int first, long near, EpochDraws now) {
    int[] draws = shared == null ? null : shared.take(e);
    if (draws == null) {
      draws = new int[now.length()];
      now.fill(e, draws);
    }
    // The class of batches this trainer writes: the first row's batch modulo the trainers (a row
    // with no position here, carried from another epoch, leaves the whole epoch counted).
    int at = parts > 1 ? EpochUse.position(draws, first, near, reach) : -1;
    int mine = parts > 1 && at >= 0 ? (at / batch) % parts : -1;
    // The epoch's positions in consecutive stretches, scanned in parallel (10^8 of them before a large
    // set's first batch), each stretch's first reads and last uses merged in order.
    int[] d = draws;
    int stretches = scanStretches > 0 ? scanStretches : stretches(draws.length, files.size());
    List<Scan> scans = java.util.stream.IntStream.range(0, stretches).parallel()
        .mapToObj(c -> scan(d, (int) ((long) d.length * c / stretches), (int) ((long) d.length * (c + 1) / stretches), mine))
        .toList();
    int fileCount = files.size();
    int[] place = new int[fileCount];
    int[] lastUse = new int[fileCount];
    Arrays.fill(place, -1);
    Arrays.fill(lastUse, -1);
    int[] firstRead = new int[fileCount];
    int k = 0;
    for (Scan scan : scans) {
      for (int i = 0; i < scan.count; i++) {
        int f = scan.firstRead[i];
        if (place[f] < 0) {
          place[f] = k;
          firstRead[k++] = f;
        }
        lastUse[f] = scan.lastUse[f];
      }
    }
    return new EpochUse(e, now, Arrays.copyOf(firstRead, k), place, lastUse, draws, reach, nextFirst);
  }

  /** Tests set the stretches an epoch is scanned in; 0: {@link #stretches}. */
  int scanStretches;

  /**
   * The stretches an epoch of {@code positions} over {@code files} files is scanned in: one below
   * {@link GlobalOrder#PARALLEL_FROM} positions, else one per core, at most 8 and at most one per
   * 4 positions a file (each stretch keeps two tables of a slot per file).
   */
  static int stretches(int positions, int files) {
    if (positions < GlobalOrder.PARALLEL_FROM) {
      return 1;
    }
    long byFiles = positions / (4L * Math.max(1, files));
    return (int) Math.max(1, Math.min(Math.min(Runtime.getRuntime().availableProcessors(), 8), byFiles));
  }

  /** The files positions {@code [from, to)} read, in the order they first do, and each one's last use there (-1: none). */
  private record Scan(int[] firstRead, int count, int[] lastUse) {}

  /** Scans positions {@code [from, to)} of {@code draws}: those of every batch, or of the batches {@code mine} modulo the parts. */
  private Scan scan(int[] draws, int from, int to, int mine) {
    int[] lastUse = new int[files.size()];
    Arrays.fill(lastUse, -1);
    int[] firstRead = new int[files.size()];
    int k = 0;
    for (int p = from; p < to; p++) {
      if (mine >= 0 && (p / batch) % parts != mine) {
        continue;
      }
      int f = files.fileOf(draws[p]);
      if (lastUse[f] < 0) {
        firstRead[k++] = f;
      }
      lastUse[f] = p;
    }
    return new Scan(firstRead, k, lastUse);
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
    if (l != null && l.nextReads(file)) {
      // Read ahead for the next epoch's start: needed until that epoch says when it is done with it.
      return key(l.epoch + 1, 0);
    }
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
