package dev.minibatch.runtime.internal.engine;

import dev.minibatch.TooLong;
import java.util.Arrays;
import java.util.List;

/**
 * What a generated provider declares about its variable-length members, by layout position and by
 * length group (the members that share one length: a member and those {@code sameLengthAs} it).
 * Called by generated code: its shape may change in any release.
 *
 * @param <S> the sample type
 */
public final class SequenceFields<S> {
  private final int[] axes;
  private final int[] groups;
  private final List<String> groupNames;
  private final int[] maxLengths;
  private final TooLong[] tooLong;
  private final SampleLengths<S> lengths;

  /**
   * @param axes per layout position, the variable axis of the sample shape, or -1
   * @param groups per layout position, the length group, or -1
   * @param groupNames per group, the provided name of the member that owns the length
   * @param maxLengths per group, the declared bound (0: none)
   * @param tooLong per group, what a longer sample becomes
   * @param lengths reads a sample's length per group
   */
  public SequenceFields(int[] axes, int[] groups, List<String> groupNames, int[] maxLengths, TooLong[] tooLong,
      SampleLengths<S> lengths) {
    if (axes.length != groups.length || groupNames.size() != maxLengths.length
        || maxLengths.length != tooLong.length) {
      throw new IllegalArgumentException("inconsistent sequence fields");
    }
    this.axes = axes.clone();
    this.groups = groups.clone();
    this.groupNames = List.copyOf(groupNames);
    this.maxLengths = maxLengths.clone();
    this.tooLong = tooLong.clone();
    this.lengths = lengths;
  }

  /** The number of length groups. */
  public int groupCount() {
    return maxLengths.length;
  }

  /** The variable axis of the sample shape at layout position {@code position}, or -1. */
  public int axis(int position) {
    return axes[position];
  }

  /** The length group of layout position {@code position}, or -1. */
  public int group(int position) {
    return groups[position];
  }

  /** The provided name of the member that owns group {@code group}'s length. */
  public String groupName(int group) {
    return groupNames.get(group);
  }

  /** The declared bound of group {@code group} (0: none). */
  public int maxLength(int group) {
    return maxLengths[group];
  }

  /** What a sample longer than group {@code group}'s bound becomes. */
  public TooLong tooLong(int group) {
    return tooLong[group];
  }

  /** The length of {@code sample} in {@code group}, after the group's bound: clamped, or an error. */
  int clampedLength(S sample, int group, long index) {
    int n = lengths.length(sample, group, index);
    int max = maxLengths[group];
    if (max > 0 && n > max) {
      if (tooLong[group] == TooLong.ERROR) {
        throw Collate.tooLong(groupNames.get(group), index, n, max);
      }
      return max;
    }
    return n;
  }

  @Override
  public String toString() {
    return "SequenceFields" + groupNames + " maxLength " + Arrays.toString(maxLengths);
  }
}
