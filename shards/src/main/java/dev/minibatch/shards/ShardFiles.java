package dev.minibatch.shards;

import dev.minibatch.shards.ShardColumns.Column;
import java.util.ArrayList;
import java.util.List;

/**
 * The files a provider reads, numbered across its shard sets: the files of set 0 in index order,
 * then those of set 1, and so on. Sample {@code i} of set {@code s} has the provider-wide index
 * {@code offset(s) + i}, so one int names a sample of any set and one binary search finds its file.
 */
final class ShardFiles {
  private final List<Column> columns;
  private final ShardStore[] stores;
  private final ShardIndex.Entry[] entries;
  private final long[] firsts;
  private final long[] offsets;
  private final int[] longest;
  // The samples of every file but the last when they are all equal, else 0.
  private final int perFile;
  private final int samples;

  /**
   * @throws IllegalArgumentException if a set's columns differ from the first set's
   */
  ShardFiles(List<ShardStore> sets, List<ShardIndex> indexes) {
    this.columns = indexes.get(0).columns();
    this.longest = new int[columns.size()];
    List<ShardStore> storeOf = new ArrayList<>();
    List<ShardIndex.Entry> all = new ArrayList<>();
    List<Long> starts = new ArrayList<>();
    this.offsets = new long[indexes.size()];
    long offset = 0;
    for (int s = 0; s < indexes.size(); s++) {
      ShardIndex index = indexes.get(s);
      // The first set's layouts and bounds stand for the mix: the sets agree on what the bytes are.
      if (!ShardColumns.storage(index.columns()).equals(ShardColumns.storage(columns))
          || !encodings(index.columns()).equals(encodings(columns))) {
        throw new IllegalArgumentException("the shard sets of a mix hold one kind of sample, but "
            + sets.get(s).directory() + " has the columns " + describe(index.columns()) + " and "
            + sets.get(0).directory() + " has " + describe(columns));
      }
      offsets[s] = offset;
      for (int c = 0; c < longest.length; c++) {
        longest[c] = Math.max(longest[c], index.longest().get(c));
      }
      for (ShardIndex.Entry e : index.files()) {
        storeOf.add(sets.get(s));
        all.add(e);
        starts.add(offset + e.first());
      }
      offset += index.samples();
    }
    if (offset > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("shard sets of " + offset + " samples in all; a provider reads at most "
          + (Integer.MAX_VALUE - 8));
    }
    this.samples = (int) offset;
    this.stores = storeOf.toArray(ShardStore[]::new);
    this.entries = all.toArray(ShardIndex.Entry[]::new);
    this.firsts = new long[entries.length];
    for (int f = 0; f < entries.length; f++) {
      firsts[f] = starts.get(f);
    }
    int f = entries.length;
    int equal = entries[0].samples();
    for (int i = 1; i < f - 1; i++) {
      if (entries[i].samples() != equal || firsts[i] != (long) i * equal) {
        equal = 0;
        break;
      }
    }
    this.perFile = f > 1 && entries[f - 1].samples() > equal ? 0 : equal;
  }

  /** The file that holds provider-wide sample {@code sample}. */
  int fileOf(int sample) {
    if (perFile > 0) {
      // Every file but the last holds perFile samples (what ShardWriter writes): no search.
      return Math.min(sample / perFile, firsts.length - 1);
    }
    int i = java.util.Arrays.binarySearch(firsts, sample);
    return i >= 0 ? i : -i - 2;
  }

  private static List<dev.minibatch.SampleSchema.Encoding> encodings(List<Column> columns) {
    return columns.stream().map(c -> c.field().encoding()).toList();
  }

  /** The samples of all sets. */
  int samples() {
    return samples;
  }

  private static String describe(List<Column> columns) {
    return columns.stream().map(c -> c.field().toString()).toList().toString();
  }

  List<Column> columns() {
    return columns;
  }

  /** Per column, the most steps a sample of any set holds along its variable axis (0 for a fixed column). */
  int longest(int column) {
    return longest[column];
  }

  int size() {
    return entries.length;
  }

  /** File {@code f} as its set's index lists it (its {@code first} counts within that set). */
  ShardIndex.Entry entry(int f) {
    return entries[f];
  }

  /** The store that holds file {@code f}. */
  ShardStore store(int f) {
    return stores[f];
  }

  /** Each file's provider-wide first sample index, ascending. */
  long[] firsts() {
    return firsts.clone();
  }

  /** The provider-wide index of set {@code s}'s first sample. */
  long offset(int s) {
    return offsets[s];
  }
}
