package dev.minibatch.samples.text;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The token ids a corpus uses, numbered 0, 1, 2, … in id order: a small model over a large
 * tokeniser's ids needs an embedding row per id it meets, not one per id of the vocabulary
 * ({@code cl100k_base} has 100 277).
 */
public final class CompactIds {
  private final int[] ids;

  private CompactIds(int[] ids) {
    this.ids = ids;
  }

  /** The ids that {@code used} holds, numbered in id order. */
  public static CompactIds of(BitSet used) {
    return new CompactIds(used.stream().toArray());
  }

  /** The number of ids: the model's vocabulary. */
  public int size() {
    return ids.length;
  }

  /**
   * The compact number of token {@code id}.
   *
   * @throws IllegalArgumentException if the corpus does not use {@code id}
   */
  public int compact(int id) {
    int i = Arrays.binarySearch(ids, id);
    if (i < 0) {
      throw new IllegalArgumentException("token id " + id + " is not one of the corpus's " + ids.length + " ids");
    }
    return i;
  }

  @Override
  public String toString() {
    return "CompactIds[" + ids.length + " ids]";
  }
}
