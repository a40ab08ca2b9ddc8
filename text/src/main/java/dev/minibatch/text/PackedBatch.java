package dev.minibatch.text;

import java.util.List;
import java.util.function.Function;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * One trainer's step of {@link PackedBatches}: global batch {@link #index()} of the epoch's packed
 * rows, {@code rows} of them (fewer in the epoch's last batch). The arrays are {@code INT32} of
 * shape {@code [rows().size(), L]}, made on each call from the rows.
 */
public final class PackedBatch {
  private final long index;
  private final List<PackedRow> rows;

  PackedBatch(long index, List<PackedRow> rows) {
    this.index = index;
    this.rows = List.copyOf(rows);
  }

  /** The global batch: {@code j} holds the epoch's packed rows {@code [j·R, (j+1)·R)}. */
  public long index() {
    return index;
  }

  /** The rows, in their global order. */
  public List<PackedRow> rows() {
    return rows;
  }

  /** {@link PackedRow#ids()} of every row, {@code [rows, L]}. */
  public INDArray ids() {
    return matrix(PackedRow::ids);
  }

  /**
   * {@link PackedRow#labels()} of every row, {@code [rows, L]}.
   *
   * @throws IllegalStateException if the packing was not built with {@code shiftLabels(true)}
   */
  public INDArray labels() {
    return matrix(PackedRow::labels);
  }

  /** {@link PackedRow#lossMask()} of every row, {@code [rows, L]}: 1 on a real token, 0 on padding. */
  public INDArray lossMask() {
    return matrix(PackedRow::lossMask);
  }

  /** {@link PackedRow#segmentIds()} of every row, {@code [rows, L]}. */
  public INDArray segmentIds() {
    return matrix(PackedRow::segmentIds);
  }

  /** {@link PackedRow#positionIds()} of every row, {@code [rows, L]}. */
  public INDArray positionIds() {
    return matrix(PackedRow::positionIds);
  }

  /**
   * The {@code cu_seqlens} of the batch as one sequence of {@code rows · L} positions, row after row,
   * for variable-length attention kernels: INT32, from 0 to {@code rows · L}, the start of every
   * segment of every row and then the end; a row's padding, when it has some, is one more segment
   * (its positions have loss mask 0), so the offsets cover every position and no segment spans two
   * rows. Row {@code r}'s segment {@code s} starts at {@code r·L + row.boundary(s)}.
   */
  public INDArray boundaries() {
    int length = rows.isEmpty() ? 0 : rows.get(0).length();
    int n = 1;
    for (PackedRow row : rows) {
      n += row.segments() + (row.realTokens() < length ? 1 : 0);
    }
    int[] cu = new int[n];
    int at = 0;
    for (int r = 0; r < rows.size(); r++) {
      PackedRow row = rows.get(r);
      for (int s = 0; s < row.segments(); s++) {
        cu[at++] = r * length + row.boundary(s);
      }
      if (row.realTokens() < length) {
        cu[at++] = r * length + row.realTokens();
      }
    }
    cu[at] = rows.size() * length;
    return Nd4j.createFromArray(cu);
  }

  private INDArray matrix(Function<PackedRow, int[]> column) {
    int[][] m = new int[rows.size()][];
    for (int r = 0; r < m.length; r++) {
      m[r] = column.apply(rows.get(r));
    }
    return Nd4j.createFromArray(m);
  }

  @Override
  public String toString() {
    return "PackedBatch[" + index + ", " + rows.size() + " rows]";
  }
}
