package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.TooLong;
import dev.minibatch.runtime.internal.engine.Collate;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.internal.engine.SequenceFields;
import dev.minibatch.runtime.internal.engine.Sequences;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a provider reads the variable columns of shard sets: per column its length group and step
 * padding, per group its bound and {@code tooLong} policy (the generated provider's declarations,
 * or for {@link ShardProvider} one group per column). The batches are padded by the runtime's rule
 * ({@link Sequences}: to the batch's longest sample, or to the bound with fixed lengths; masks and
 * lengths per group), the lengths read from the decoded files as each batch is planned.
 */
final class ShardSequences {
  private final SequenceFields<?> fields;
  private final boolean fixedLength;
  /** Per column (layout position): its step padding. */
  private final double[] padding;

  ShardSequences(SequenceFields<?> fields, boolean fixedLength, double[] padding) {
    this.fields = fields;
    this.fixedLength = fixedLength;
    this.padding = padding.clone();
  }

  /**
   * {@link ShardProvider}'s: each variable column its own length group, bounded by {@code
   * maxLengths} (a longer sample is an error), padded with {@code paddings} (default 0).
   */
  static ShardSequences of(List<Column> columns, Map<String, Integer> maxLengths, Map<String, Double> paddings) {
    int n = columns.size();
    int[] axes = new int[n];
    int[] groups = new int[n];
    double[] pads = new double[n];
    List<String> names = new ArrayList<>();
    List<Integer> bounds = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Column c = columns.get(i);
      axes[i] = c.shape().variableAxis();
      groups[i] = c.variable() ? names.size() : -1;
      pads[i] = paddings.getOrDefault(c.name(), 0.0);
      if (c.variable()) {
        names.add(c.name());
        bounds.add(maxLengths.getOrDefault(c.name(), 0));
      }
    }
    for (String name : maxLengths.keySet()) {
      if (!names.contains(name)) {
        throw new IllegalArgumentException("maxLength(\"" + name + "\", ...): the shard set has no column '" + name
            + "' with a variable axis; its variable columns: " + names);
      }
    }
    for (String name : paddings.keySet()) {
      if (!names.contains(name)) {
        throw new IllegalArgumentException("stepPadding(\"" + name + "\", ...): the shard set has no column '" + name
            + "' with a variable axis; its variable columns: " + names);
      }
    }
    TooLong[] policies = new TooLong[names.size()];
    java.util.Arrays.fill(policies, TooLong.ERROR);
    SequenceFields<Object> fields = new SequenceFields<>(axes, groups, names,
        bounds.stream().mapToInt(Integer::intValue).toArray(), policies, (sample, group, index) -> {
          throw new IllegalStateException("a shard set's lengths are read from its files");
        });
    return new ShardSequences(fields, false, pads);
  }

  /** Whether any column has a variable axis. */
  static boolean any(List<Column> columns) {
    return columns.stream().anyMatch(Column::variable);
  }

  /**
   * The engine's sequences over {@code files}, lengths read by {@code lengths}.
   *
   * @throws IllegalArgumentException if the declarations do not fit the columns
   */
  Sequences sequences(ShardFiles files, Sequences.Lookup lengths) {
    List<Column> columns = files.columns();
    int[] bounds = new int[fields.groupCount()];
    for (int i = 0; i < columns.size(); i++) {
      int g = fields.group(i);
      if ((g >= 0) != columns.get(i).variable() || g >= 0 && fields.axis(i) != columns.get(i).shape().variableAxis()) {
        throw new IllegalArgumentException("column '" + columns.get(i).name() + "' of the shard set is " + columns.get(i)
            .shape() + ", but the provider declares its variable axis at " + fields.axis(i));
      }
      if (g >= 0) {
        // The declared bound, else the set's longest sample (its index says): no batch is longer.
        int declared = fields.maxLength(g);
        bounds[g] = Math.max(bounds[g], declared > 0 ? declared : Math.max(1, files.longest(i)));
      }
    }
    return Sequences.lookup(fields, bounds, fixedLength, lengths);
  }

  /** The length group of column {@code c}, or -1. */
  int group(int c) {
    return fields.group(c);
  }

  /** The step padding of column {@code c}. */
  double padding(int c) {
    return padding[c];
  }

  /**
   * The length of a row of {@code steps} steps in group {@code g} after the group's bound: the
   * bound when it is longer and truncated.
   *
   * @param longest the longest sample of the column the index records: the bound of a group
   *     without a declared one, to which batches are sized
   * @throws FileFormatException naming the file, the row and the column for a longer row under
   *     {@code tooLong = ERROR}, and for a row longer than {@code longest} without a declared bound
   *     (the index does not describe the file)
   */
  int clamp(int g, int steps, int longest, String where, int row, String column) {
    int max = fields.maxLength(g);
    if (max <= 0) {
      if (steps > Math.max(1, longest)) {
        throw new FileFormatException(where, "row " + row + " (of the file), column '" + column + "': " + steps
            + " steps, more than the longest sample the index records (" + longest + "): the index does not describe"
            + " this file");
      }
      return steps;
    }
    if (steps <= max) {
      return steps;
    }
    if (fields.tooLong(g) == TooLong.ERROR) {
      throw new FileFormatException(where, "row " + row + " (of the file), column '" + column + "': " + steps
          + " steps, expected at most maxLength " + max + " of '" + fields.groupName(g) + "' (tooLong = ERROR); raise"
          + " maxLength, or truncate with tooLong = TRUNCATE_START or TRUNCATE_END");
    }
    return max;
  }

  /** The steps a row of {@code steps} keeps from its start: the last ones under {@code TRUNCATE_START}. */
  int skip(int g, int steps, int kept) {
    return fields.tooLong(g) == TooLong.TRUNCATE_START ? steps - kept : 0;
  }

  /** One row's copy of a variable column, padded: the step padding as a row of the column's element type. */
  static final class Padder {
    private final Column column;
    private final int outer;
    private final int block;
    private final Object padRow;

    Padder(Column column, double padding) {
      this.column = column;
      this.outer = column.outer();
      this.block = column.stepBytes() / outer;
      this.padRow = Collate.padRow(column.dtype(), padding);
    }

    /**
     * Writes row {@code r} of {@code out}'s array {@code a} at {@code steps} steps: {@code len}
     * steps of the file's row from step {@code skip} (of its {@code stored}), then the padding; per
     * block of the axes before the variable one.
     */
    void write(ByteBuffer src, int start, int stored, int skip, int len, int steps, CollateTarget out, int a, int r) {
      ByteBuffer dst = out.bytes(a);
      int size = column.dtype().byteSize();
      int row = r * steps * column.stepBytes();
      for (int o = 0; o < outer; o++) {
        int at = row + o * steps * block;
        dst.put(at, src, start + (o * stored + skip) * block, len * block);
        Collate.fill(out, a, column.dtype(), (at + len * block) / size, (steps - len) * (block / size), padRow);
      }
    }
  }
}
