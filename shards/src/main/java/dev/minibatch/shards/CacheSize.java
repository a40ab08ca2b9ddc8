package dev.minibatch.shards;

import java.util.ArrayList;
import java.util.List;

/**
 * How many decoded files a provider's cache must hold so that every file loads once per epoch
 * (docs/shards.md, "The cache"): per set read, the most files that the positions being read at
 * once can fall in. Those positions are a shuffle window (the samples are drawn from all of it in
 * any order), or, without shuffle, the rows being written; with several reader threads, the
 * batches they write at once, which may reach into the next window.
 *
 * <p>{@code p} consecutive positions of the epoch's file order fall in at most {@code 2 + j}
 * files, where {@code j} is the most of the set's smallest files that fit into {@code p - 2}
 * positions (the first and the last file may contribute one sample each); when every file holds
 * {@code m} samples and {@code p} is a multiple of {@code m}, positions that start at a multiple
 * of {@code p} (shuffle windows) fall in exactly {@code p / m}.
 */
final class CacheSize {
  private CacheSize() {}

  /** The positions read at once in one set, as the class comment says. */
  static Reach reach(boolean shuffle, int window, int readers, int batchSize) {
    return new Reach(positions(shuffle, window, readers, batchSize), shuffle);
  }

  /** {@code positions} read at once, starting at a multiple of themselves if {@code aligned}. */
  record Reach(long positions, boolean aligned) {}

  private static long positions(boolean shuffle, int window, int readers, int batchSize) {
    long inFlight = readers > 1 ? (long) readers * batchSize : 1;
    if (!shuffle) {
      return inFlight;
    }
    // The windows that the writes under way overlap: one, or those a span of inFlight touches.
    long windows = readers > 1 ? (inFlight + window - 1) / window + 1 : 1;
    return windows * window;
  }

  /** The most files of {@code index} that {@code positions} consecutive positions fall in. */
  static int span(ShardIndex index, Reach reach) {
    long positions = reach.positions();
    int[] sizes = index.files().stream().mapToInt(ShardIndex.Entry::samples).sorted().toArray();
    if (sizes.length == 0) {
      return 0;
    }
    long p = Math.min(positions, index.samples());
    boolean equal = sizes[0] == sizes[sizes.length - 1];
    if (reach.aligned() && equal && p % sizes[0] == 0) {
      return (int) Math.min(sizes.length, p / sizes[0]);
    }
    if (p <= 1) {
      return 1;
    }
    int files = 2;
    long left = p - 2;
    for (int i = 0; i < sizes.length && files < sizes.length && sizes[i] <= left; i++) {
      left -= sizes[i];
      files++;
    }
    return Math.min(files, sizes.length);
  }

  /** The smallest cache that loads each file once per epoch: the spans of the sets read. */
  static int smallest(List<ShardIndex> indexes, MixOrder order, Reach reach) {
    long sum = 0;
    for (int s = 0; s < indexes.size(); s++) {
      if (order.quota(s) > 0) {
        sum += span(indexes.get(s), reach);
      }
    }
    return (int) Math.min(Integer.MAX_VALUE, sum);
  }

  /**
   * The default cache: per set read, the smallest and room for {@code readAhead} more files, and at
   * least {@code ceil(window / smallest file) + 1} with the read-ahead, shuffled or not (so a set of
   * fewer files stays whole in memory across epochs).
   */
  static int byDefault(List<ShardIndex> indexes, MixOrder order, Reach reach, int window, int readAhead) {
    long sum = 0;
    for (int s = 0; s < indexes.size(); s++) {
      if (order.quota(s) > 0) {
        int minFile = indexes.get(s).files().stream().mapToInt(ShardIndex.Entry::samples).min().orElse(1);
        long windowFiles = ((long) window + minFile - 1) / minFile + 1;
        sum += Math.max(span(indexes.get(s), reach), windowFiles) + readAhead;
      }
    }
    return (int) Math.min(Integer.MAX_VALUE, sum);
  }

  /** Why {@code cacheFiles(asked)} is refused, with the smallest that works and what needs it. */
  static String tooSmall(int asked, List<ShardIndex> indexes, MixOrder order, Reach reach, List<ShardStore> stores,
      int readers) {
    long positions = reach.positions();
    boolean shuffle = reach.aligned();
    List<String> parts = new ArrayList<>();
    for (int s = 0; s < indexes.size(); s++) {
      if (order.quota(s) > 0) {
        parts.add(span(indexes.get(s), reach) + " of " + stores.get(s).directory());
      }
    }
    String what = shuffle
        ? (readers > 1 ? "the shuffle windows that " + readers + " reader threads read at once ("
            + positions + " positions)" : "a shuffle window (" + positions + " positions)")
        : readers > 1 ? "the batches that " + readers + " reader threads write at once (" + positions + " positions)"
            : "one position";
    return "cacheFiles(" + asked + ") is too small: " + what + " can fall in " + String.join(" + ", parts)
        + " files, which must stay decoded while they are read, or files load again within an epoch; the smallest "
        + "cache that works is " + smallest(indexes, order, reach) + " (or leave cacheFiles unset for the default)";
  }

  /**
   * The cache of a trainer reading its share ({@link PartitionOrder}): it reads its {@code C / k}
   * partitions in turn, a batch of each, so each of them holds its shuffle window (without shuffle,
   * its current file) in the cache at once; per partition, the positions read at once are those of
   * one reader of the global order, with the trainer's reader threads spread over its partitions.
   * The tail is read once the partitions are done with, from a cache they no longer need.
   */
  static final class Shares {
    private final ShardIndex index;
    private final Reach reach;
    private final int owned;
    private final boolean shuffle;

    Shares(ShardIndex index, PartitionOrder order, dev.minibatch.runtime.internal.settings.Sampling sampling,
        int readers) {
      this.index = index;
      this.owned = order.partitions() / sampling.numParts();
      this.shuffle = sampling.shuffle();
      int perPartition = (Math.max(1, readers) + owned - 1) / owned;
      Reach r = reach(shuffle, order.window(), perPartition, order.batch());
      int smallestFile = index.files().stream().mapToInt(ShardIndex.Entry::samples).min().orElse(1);
      // Windows start at a partition's first position: on file boundaries only if a partition is whole files.
      this.reach = new Reach(r.positions(), r.aligned() && order.partitionLength() % smallestFile == 0);
    }

    /** The smallest cache that loads each of the trainer's files once per epoch. */
    int smallest() {
      return (int) Math.min(Integer.MAX_VALUE, (long) owned * span(index, reach));
    }

    /**
     * {@code asked} if it is at least {@link #smallest()}; unset ({@code 0}), the smallest or, if
     * larger, a window of files and one more per partition, plus {@code readAhead}.
     *
     * @throws IllegalArgumentException if {@code asked} is too small, naming the smallest that works
     */
    int capacity(int asked, int window, int readAhead, String directory) {
      int smallest = smallest();
      if (asked > 0 && asked < smallest) {
        throw new IllegalArgumentException("cacheFiles(" + asked + ") is too small: this trainer reads " + owned
            + " partitions of " + directory + " in turn, each holding " + (shuffle ? "a shuffle window ("
            + reach.positions() + " positions)" : "its current file") + " in " + span(index, reach)
            + " files while it is read, or files load again within an epoch; the smallest cache that works is "
            + smallest + " (or leave cacheFiles unset for the default)");
      }
      if (asked > 0) {
        return asked;
      }
      int minFile = index.files().stream().mapToInt(ShardIndex.Entry::samples).min().orElse(1);
      long windowFiles = ((long) window + minFile - 1) / minFile + 1;
      long byDefault = Math.max(smallest, (long) owned * windowFiles) + readAhead;
      return (int) Math.min(index.files().size(), byDefault);
    }
  }
}
