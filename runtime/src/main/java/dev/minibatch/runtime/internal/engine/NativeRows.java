package dev.minibatch.runtime.internal.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.javacpp.BytePointer;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Row access to the host memory of a dense C-order INDArray (axis 0 = rows), for bulk copies
 * without going through ND4J ops. The gather copies between raw addresses ({@link RawMemory})
 * where the JDK allows it quietly, else through direct {@link ByteBuffer}s made once (arrays over
 * 2 GiB are covered by several row-aligned buffers); either way a copy is one call per run of
 * consecutive rows: no allocation, no JNI call per row.
 *
 * <p>Make one per array and keep it: creating it costs a few allocations.
 */
final class NativeRows {
  private final INDArray array;
  private final long rows;
  private final int rowBytes;
  private final int rowsPerSegment;
  private final ByteBuffer[] segments;
  /** The host address of row 0, for {@link RawMemory}'s copies (0 for an empty array). */
  private final long address;
  /** This one alone, so the one-array gather runs the many-array loop without allocating. */
  private final NativeRows[] alone = {this};
  /** Sink for the prefetching reads in {@link #gather}, so the JIT cannot drop them; rarely written. */
  @SuppressWarnings("unused")
  private static int touched;

  private NativeRows(INDArray array) {
    this.array = array;
    this.rows = array.rank() == 0 ? 1 : array.size(0);
    long perRow = rows == 0 ? 0 : array.length() / rows;
    this.rowBytes = Math.toIntExact(perRow * array.data().getElementSize());
    int maxRows = rowBytes == 0 ? Integer.MAX_VALUE : Integer.MAX_VALUE / rowBytes;
    if (maxRows == 0) {
      throw new IllegalArgumentException("a row of " + rowBytes + " bytes is larger than 2 GiB");
    }
    this.rowsPerSegment = (int) Math.max(1, Math.min(rows, maxRows));
    int n = rows == 0 ? 0 : (int) ((rows + rowsPerSegment - 1) / rowsPerSegment);
    this.segments = new ByteBuffer[n];
    long at = 0;
    if (n > 0) {
      Nd4j.getAffinityManager().ensureLocation(array, AffinityManager.Location.HOST);
      BytePointer base = new BytePointer(array.data().addressPointer());
      at = base.address() + base.position();
      for (int s = 0; s < n; s++) {
        long first = (long) s * rowsPerSegment;
        long count = Math.min(rowsPerSegment, rows - first);
        long from = first * rowBytes;
        segments[s] = base.position(from).limit(from + count * rowBytes).asByteBuffer().order(ByteOrder.nativeOrder());
      }
    }
    this.address = at;
  }

  /**
   * Row access to {@code array}.
   *
   * @throws IllegalArgumentException unless the array is dense, C-order and starts at its buffer's
   *     start: use {@link #dense(INDArray)} first
   */
  public static NativeRows of(INDArray array) {
    if (!isDense(array)) {
      throw new IllegalArgumentException("NativeRows needs a dense C-order array that owns its buffer; call NativeRows.dense(array) first");
    }
    return new NativeRows(array);
  }

  /** {@code array} itself if it is dense, C-order and owns its buffer from the start; else a copy that is. */
  public static INDArray dense(INDArray array) {
    return isDense(array) ? array : array.dup('c');
  }

  private static boolean isDense(INDArray a) {
    return a.ordering() == 'c' && !a.isView() && a.data().offset() == 0 && a.data().length() == a.length();
  }

  /** The array. */
  public INDArray array() {
    return array;
  }

  /** The number of rows (axis 0). */
  public long rows() {
    return rows;
  }

  /** Bytes per row. */
  public int rowBytes() {
    return rowBytes;
  }

  /**
   * Copies {@code count} consecutive rows starting at {@code srcRow} of {@code src} to rows starting
   * at {@code dstRow} of {@code dst}. Both must have the same row size in bytes.
   */
  public static void copy(NativeRows src, long srcRow, NativeRows dst, long dstRow, int count) {
    if (src.rowBytes != dst.rowBytes) {
      throw new IllegalArgumentException("row sizes differ: " + src.rowBytes + " vs " + dst.rowBytes + " bytes");
    }
    while (count > 0) {
      int ss = (int) (srcRow / src.rowsPerSegment);
      int so = (int) (srcRow - (long) ss * src.rowsPerSegment);
      int ds = (int) (dstRow / dst.rowsPerSegment);
      int dof = (int) (dstRow - (long) ds * dst.rowsPerSegment);
      int n = Math.min(count, Math.min(src.rowsPerSegment - so, dst.rowsPerSegment - dof));
      dst.segments[ds].put(dof * dst.rowBytes, src.segments[ss], so * src.rowBytes, n * src.rowBytes);
      srcRow += n;
      dstRow += n;
      count -= n;
    }
  }

  /**
   * For every row {@code r} in {@code [from, to)}: copies row {@code indices[r]} of {@code src} to
   * row {@code r} of {@code dst}, one bulk copy per run of consecutive indices (so an in-order batch
   * is a single copy). Threads may gather disjoint row ranges of one {@code dst} at once.
   *
   * @throws IndexOutOfBoundsException naming the bad index
   */
  public static void gather(NativeRows src, int[] indices, int from, int to, NativeRows dst) {
    gather(src.alone, indices, from, to, dst.alone);
  }

  /**
   * {@link #gather(NativeRows, int[], int, int, NativeRows)} for several arrays of the same samples
   * at once: row {@code indices[r]} of {@code src[a]} goes to row {@code r} of {@code dst[a]} for
   * every {@code a}, in one pass over the indices. A sample's rows (features and label) are copied
   * together, so each index is read and checked once, and the next sample's rows in every array
   * are touched before this one's are copied, so their cache misses overlap the copies.
   *
   * @throws IndexOutOfBoundsException naming the bad index, or a row range outside a destination
   */
  public static void gather(NativeRows[] src, int[] indices, int from, int to, NativeRows[] dst) {
    gather(src, indices, from, to, dst, RawMemory.AVAILABLE);
  }

  /**
   * {@link #gather(NativeRows[], int[], int, int, NativeRows[])} through raw addresses if {@code
   * raw}, else through the direct buffers (the path of JDKs without quiet raw access; tests run
   * both).
   */
  static void gather(NativeRows[] src, int[] indices, int from, int to, NativeRows[] dst, boolean raw) {
    if (raw && !RawMemory.AVAILABLE) {
      throw new IllegalStateException("raw memory access is not available on this JDK");
    }
    int n = src.length;
    if (dst.length != n) {
      throw new IllegalArgumentException(n + " sources for " + dst.length + " destinations");
    }
    long rows = Long.MAX_VALUE;
    boolean oneSegment = true;
    for (int a = 0; a < n; a++) {
      if (src[a].rowBytes != dst[a].rowBytes) {
        throw new IllegalArgumentException("row sizes differ: " + src[a].rowBytes + " vs " + dst[a].rowBytes + " bytes");
      }
      if (from < 0 || to > dst[a].rows) {
        throw new IndexOutOfBoundsException("rows [" + from + ", " + to + ") outside the destination's [0, " + dst[a].rows
            + ")");
      }
      oneSegment &= src[a].segments.length == 1 && dst[a].segments.length == 1;
      rows = Math.min(rows, src[a].rows);
    }
    int touchedSum;
    if (!raw) {
      touchedSum = gatherBuffers(src, indices, from, to, dst, rows, oneSegment);
    } else if (n == 2) {
      touchedSum = gatherRawPair(src[0], src[1], indices, from, to, dst[0], dst[1], rows);
    } else {
      touchedSum = gatherRaw(src, indices, from, to, dst, rows);
    }
    if (touchedSum == 0x5EED_0001) {
      touched = touchedSum; // almost never: keeps the reads alive without a shared write per call
    }
  }

  /**
   * The length of the run of consecutive indices from {@code indices[i]}, at most up to {@code to}
   * and the sources' end, after checking that {@code indices[i]} is in {@code [0, rows)}.
   */
  private static int run(int[] indices, int i, int to, long rows) {
    int start = indices[i];
    if (start < 0 || start >= rows) {
      throw new IndexOutOfBoundsException("sample index " + start + " outside [0, " + rows + ")");
    }
    int run = 1;
    while (i + run < to && indices[i + run] == start + run && start + run < rows) {
      run++;
    }
    return run;
  }

  /**
   * The gather as raw copies between addresses, every bound checked first: the destination rows by
   * {@link #gather}, each index and run by {@link #run}. Returns the sum of the touched bytes.
   */
  private static int gatherRaw(NativeRows[] src, int[] indices, int from, int to, NativeRows[] dst, long rows) {
    int n = src.length;
    int touchedSum = 0;
    int i = from;
    while (i < to) {
      int run = run(indices, i, to, rows);
      long start = indices[i];
      int ahead = i + run < to ? indices[i + run] : -1;
      if (ahead >= 0 && ahead < rows) {
        // Every array's next row first, then this sample's copies: rows drawn at random are each
        // a miss the hardware prefetcher cannot foresee, and these overlap the copies below
        // (touching each array's just before its own copy measured 0.89x of this order).
        for (int a = 0; a < n; a++) {
          touchedSum += RawMemory.touch(src[a].address + ahead * src[a].rowBytes);
        }
      }
      for (int a = 0; a < n; a++) {
        long rb = src[a].rowBytes;
        RawMemory.copy(src[a].address + start * rb, dst[a].address + i * rb, run * rb);
      }
      i += run;
    }
    return touchedSum;
  }

  /**
   * {@link #gatherRaw} for the common pair of arrays (features and labels), with their addresses
   * and row sizes in locals rather than read from the arrays per sample: measured 1.04x the loop
   * over arrays (docs/performance.md).
   */
  private static int gatherRawPair(NativeRows src0, NativeRows src1, int[] indices, int from, int to, NativeRows dst0,
      NativeRows dst1, long rows) {
    long s0 = src0.address;
    long s1 = src1.address;
    long d0 = dst0.address;
    long d1 = dst1.address;
    long rb0 = src0.rowBytes;
    long rb1 = src1.rowBytes;
    int touchedSum = 0;
    int i = from;
    while (i < to) {
      int run = run(indices, i, to, rows);
      long start = indices[i];
      int ahead = i + run < to ? indices[i + run] : -1;
      if (ahead >= 0 && ahead < rows) {
        touchedSum += RawMemory.touch(s0 + ahead * rb0);
        touchedSum += RawMemory.touch(s1 + ahead * rb1);
      }
      RawMemory.copy(s0 + start * rb0, d0 + i * rb0, run * rb0);
      RawMemory.copy(s1 + start * rb1, d1 + i * rb1, run * rb1);
      i += run;
    }
    return touchedSum;
  }

  /** The gather through the rows' direct buffers (where {@link RawMemory} is not available). */
  private static int gatherBuffers(NativeRows[] src, int[] indices, int from, int to, NativeRows[] dst, long rows,
      boolean oneSegment) {
    int n = src.length;
    int touchedSum = 0;
    int i = from;
    while (i < to) {
      int run = run(indices, i, to, rows);
      int start = indices[i];
      int ahead = i + run < to ? indices[i + run] : -1;
      if (oneSegment && ahead >= 0 && ahead < rows) {
        for (int a = 0; a < n; a++) {
          touchedSum += src[a].segments[0].get(ahead * src[a].rowBytes);
        }
      }
      for (int a = 0; a < n; a++) {
        NativeRows s = src[a];
        if (oneSegment) {
          // The common case (arrays under 2 GiB): no segment arithmetic per run.
          int rb = s.rowBytes;
          dst[a].segments[0].put(i * rb, s.segments[0], start * rb, run * rb);
        } else {
          copy(s, start, dst[a], i, run);
        }
      }
      i += run;
    }
    return touchedSum;
  }

  /** Marks this array's host copy as the current one (needed on GPU backends after host writes). */
  public void hostWritten() {
    Nd4j.getAffinityManager().tagLocation(array, AffinityManager.Location.HOST);
  }
}
