package dev.minibatch.runtime.internal.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.BatchLayout;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The variable-length members of one engine, resolved against its data: per length group the
 * buffers' bound (the declared {@code maxLength}, else the longest sample of a List source), and
 * for a List source every sample's length (read once, when the provider is built), from which each
 * batch's padded length is decided before any row is written: the longest sample of the batch, the
 * batch's bucket bound, or the bound itself with fixed shapes. Called by generated code: its shape
 * may change in any release.
 */
public final class Sequences {
  private final SequenceFields<?> fields;
  private final int[] bounds;
  private final int @Nullable [][] table;
  // Where the lengths are read when a batch is planned, for a source without a table (a shard set).
  private final @Nullable Lookup lookup;
  private final boolean fixed;

  private Sequences(SequenceFields<?> fields, int[] bounds, int @Nullable [][] table, boolean fixed) {
    this(fields, bounds, table, null, fixed);
  }

  private Sequences(SequenceFields<?> fields, int[] bounds, int @Nullable [][] table, @Nullable Lookup lookup,
      boolean fixed) {
    this.fields = fields;
    this.bounds = bounds;
    this.table = table;
    this.lookup = lookup;
    this.fixed = fixed;
  }

  /**
   * Reads a sample's length (after its group's bound) when a batch is planned, for a source whose
   * lengths are known without reading every sample first. Called from any reader thread.
   */
  @FunctionalInterface
  public interface Lookup {
    /** The length of sample {@code sample} in group {@code group}, after the group's bound. */
    int length(int group, int sample);
  }

  /**
   * For a random-access source whose lengths are read as batches are planned ({@code lengths}), and
   * whose bound per group is known in advance ({@code bounds}: no sample is longer): batches are
   * padded to their longest sample, or with {@code fixedLength} to the bound, as for a List source.
   * Buckets need every length first, so {@link #lengths(int)} is refused.
   */
  public static Sequences lookup(SequenceFields<?> fields, int[] bounds, boolean fixedLength, Lookup lengths) {
    if (bounds.length != fields.groupCount()) {
      throw new IllegalArgumentException("one bound per length group: " + fields.groupCount() + ", got " + bounds.length);
    }
    return new Sequences(fields, bounds.clone(), null, lengths, fixedLength);
  }

  /**
   * Reads the length of every sample of {@code samples} in every group (applying each group's
   * bound: truncating, or failing for {@code TooLong.ERROR}).
   *
   * @param fixedLength pad every batch to the bound (the declared maxLength, else the longest sample)
   * @throws IllegalArgumentException for a sample longer than an ERROR bound (naming it)
   */
  public static <S> Sequences measure(List<? extends S> samples, SequenceFields<S> fields, boolean fixedLength) {
    int groups = fields.groupCount();
    int n = samples.size();
    int[][] table = new int[groups][n];
    int[] longest = new int[groups];
    for (int i = 0; i < n; i++) {
      S s = samples.get(i);
      if (s == null) {
        throw Collate.nullSample(i);
      }
      for (int g = 0; g < groups; g++) {
        int len = fields.clampedLength(s, g, i);
        table[g][i] = len;
        longest[g] = Math.max(longest[g], len);
      }
    }
    int[] bounds = new int[groups];
    for (int g = 0; g < groups; g++) {
      bounds[g] = fields.maxLength(g) > 0 ? fields.maxLength(g) : Math.max(1, longest[g]);
    }
    return new Sequences(fields, bounds, table, fixedLength);
  }

  /**
   * For a streaming source, whose lengths are unknown until read: every group needs a declared
   * maxLength, and every batch is padded to it.
   *
   * @throws IllegalArgumentException naming a group without maxLength
   */
  public static Sequences streaming(String provider, SequenceFields<?> fields) {
    int[] bounds = new int[fields.groupCount()];
    for (int g = 0; g < bounds.length; g++) {
      if (fields.maxLength(g) <= 0) {
        throw new IllegalArgumentException(provider + ": a streaming source cannot size the buffers of '"
            + fields.groupName(g) + "', whose variable axis has no maxLength; declare @Provides(maxLength = ...) or "
            + "build from a List");
      }
      bounds[g] = fields.maxLength(g);
    }
    return new Sequences(fields, bounds, null, true);
  }

  /**
   * These sequences with group 0 bucketed: its buffers hold the largest bucket bound {@code
   * largestBound} too, since a batch is padded to its bucket's bound.
   */
  Sequences bucketed(int largestBound) {
    int[] b = bounds.clone();
    b[0] = Math.max(b[0], largestBound);
    return new Sequences(fields, b, table, lookup, fixed);
  }

  /** The number of length groups. */
  public int groups() {
    return bounds.length;
  }

  /** The buffers' length for group {@code g}: no batch is longer. */
  public int bound(int g) {
    return bounds[g];
  }

  /** The (clamped) length of every sample in group {@code g}, by sample index. */
  public int[] lengths(int g) {
    int[][] t = table;
    if (t == null) {
      throw new IllegalStateException(lookup != null ? "the lengths of this source are read as batches are planned, not"
          + " in advance" : "a streaming source's lengths are not known in advance");
    }
    return t[g].clone();
  }

  /** The provided name that owns group {@code g}'s length. */
  public String groupName(int g) {
    return fields.groupName(g);
  }

  /** The variable axis of the sample shape at layout position {@code position}, or -1. */
  int axis(int position) {
    return fields.axis(position);
  }

  /** The length group of layout position {@code position}, or -1. */
  int group(int position) {
    return fields.group(position);
  }

  /**
   * The padded length of each group for a batch whose rows hold samples {@code idx[0, samples)}:
   * the bound with fixed shapes, the bucket's bound ({@code bucketKey >= 0}) for group 0, else the
   * longest sample of the batch (at least 1, so no array has an empty axis). Thread-safe.
   */
  void steps(int[] idx, int samples, int bucketKey, int[] out) {
    for (int g = 0; g < bounds.length; g++) {
      if (fixed) {
        // Fixed shapes, or a streaming source (always fixed: it has no lengths table).
        out[g] = bounds[g];
      } else if (g == 0 && bucketKey >= 0) {
        out[g] = bucketKey;
      } else if (lookup != null) {
        int max = 1;
        for (int r = 0; r < samples; r++) {
          if (idx[r] >= 0) {
            max = Math.max(max, lookup.length(g, idx[r]));
          }
        }
        out[g] = max;
      } else {
        int[] lengths = java.util.Objects.requireNonNull(table)[g];
        int max = 1;
        for (int r = 0; r < samples; r++) {
          int i = idx[r];
          if (i >= 0 && lengths[i] > max) {
            max = lengths[i];
          }
        }
        out[g] = max;
      }
    }
  }

  /**
   * The layout a provider reports: variable axes as {@link dev.minibatch.shape.Shape#VARIABLE}
   * with their declared bound, or, with fixed shapes, the bound in place of the variable axis.
   */
  BatchLayout layout(BatchLayout declared) {
    if (!fixed) {
      return declared;
    }
    List<DataDesc> data = new ArrayList<>();
    List<DataDesc> label = new ArrayList<>();
    List<DataDesc> all = declared.all();
    for (int p = 0; p < all.size(); p++) {
      DataDesc d = all.get(p);
      if (fields.axis(p) >= 0) {
        d = d.toBuilder().shape(d.shape().withDim(fields.axis(p) + 1, bounds[fields.group(p)])).maxLength(0).build();
      }
      (p < declared.data().size() ? data : label).add(d);
    }
    return BatchLayout.of(data, label);
  }

  /** The shape the buffers of layout position {@code position} are allocated with: the bound on the variable axis. */
  long[] allocation(DataDesc d, int position) {
    long[] shape = d.shape().toLongArray();
    int axis = fields.axis(position);
    if (axis >= 0) {
      shape[axis + 1] = bounds[fields.group(position)];
    }
    return shape;
  }

  /**
   * Starts batch {@code j} of {@code plan} in {@code slot}, whose rows hold samples {@code idx[0,
   * samples)}: its seed, epoch and epoch position, and with variable-length members its padded length per group
   * (into {@code stepBuffer}) and its bucket key. The one start of a planned batch, for the
   * consumer's thread and for every reader thread.
   */
  static void begin(@Nullable Sequences q, BatchSlot<?> slot, EpochPlan plan, int j, int[] idx, int samples,
      int[] stepBuffer) {
    long first = plan.firstPosition(j);
    if (q == null) {
      slot.begin(plan.seed(), plan.epoch(), first);
      return;
    }
    int key = plan.bucketKey(j);
    q.steps(idx, samples, key, stepBuffer);
    slot.begin(plan.seed(), plan.epoch(), first, stepBuffer, key);
  }
}
