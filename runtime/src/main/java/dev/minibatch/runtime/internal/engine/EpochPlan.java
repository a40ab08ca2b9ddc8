package dev.minibatch.runtime.internal.engine;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The batches of one epoch as sample indices, laid out batch after batch in one stream. Batch
 * {@code j} holds {@code rows(j)} indices, of which the last {@code pad(j)} are padding: indices of
 * wrapped samples, or {@link #CONSTANT_PAD} for rows filled with a constant. It also counts the
 * batches delivered (its position).
 *
 * <p>Two forms. The <em>uniform</em> form ({@link SampleOrderPlan}, {@link DrawnOrder}): every batch
 * holds {@code batchSize} rows except the last, which alone can be short or padded; batch {@code j}
 * starts at {@code j * batchSize} and no per-batch arrays exist. The <em>bucketed</em> form ({@link
 * BucketOrderPlan}, made by {@link #bucketed}): every batch has its own rows, padding and bucket
 * key, so several batches can be short or padded (one per bucket); its per-batch arrays are
 * O(batches) ints. In both forms batch {@code j} starts at stream offset {@link #firstPosition(int)},
 * which is also the epoch position of its row 0 (per-sample seeds), because the stream is laid out
 * in delivery order.
 *
 * <p>A dealt plan ({@link DealtOrder}) is a view of a global plan's batches: its batch {@code j} is
 * one of the global plan's, and {@link #firstPosition(int)} is that batch's position in the global
 * epoch, not in the part's own sequence of batches.
 *
 * <p>A third form is read as it goes: the epoch of a streaming source ({@link StreamOrder}), whose
 * batches are cut from its pass one at a time ({@link #hasBatch}), so only the batch being written
 * is held; its entries are positions in a window of sample objects, whose indices in the source
 * {@link #sourceIndices()} gives.
 */
class EpochPlan {
  /** The index of a row padded with a constant. */
  static final int CONSTANT_PAD = -1;

  /** The {@link #bucketKey(int)} of every batch of a plan that is not bucketed. */
  static final int NO_BUCKET = -1;

  private final long seed;
  private final int epoch;
  private final int[] stream;
  private final int[] carriedIn;
  private final int batchSize;
  private final int batchCount;
  // Uniform form: the last batch's rows and padding.
  private final int lastRows;
  private final int lastPad;
  // Bucketed form, else null: batch j is stream[starts[j], starts[j + 1]), its last pads[j] rows padding.
  private final int @Nullable [] starts;
  private final int @Nullable [] pads;
  private final int @Nullable [] keys;
  private int position;

  /**
   * A uniform plan of epoch {@code epoch} under {@code seed}: {@code batchCount} batches of {@code
   * batchSize} rows, the last {@code lastRows} rows.
   */
  EpochPlan(long seed, int epoch, int[] stream, int[] carriedIn, int batchSize, int batchCount, int lastRows, int lastPad,
      int position) {
    this.seed = seed;
    this.epoch = epoch;
    this.stream = stream;
    this.carriedIn = carriedIn;
    this.batchSize = batchSize;
    this.batchCount = batchCount;
    this.lastRows = lastRows;
    this.lastPad = lastPad;
    this.starts = null;
    this.pads = null;
    this.keys = null;
    this.position = position;
  }

  private EpochPlan(long seed, int epoch, int[] stream, int[] carriedIn, int batchSize, int[] starts, int[] pads,
      int[] keys, int position) {
    if (starts.length != pads.length + 1 || keys.length != pads.length || starts[0] != 0) {
      throw new IllegalArgumentException("bucketed plan: " + starts.length + " starts (from " + starts[0] + "), "
          + pads.length + " pads and " + keys.length + " keys do not describe one list of batches");
    }
    for (int j = 0; j < pads.length; j++) {
      int rows = starts[j + 1] - starts[j];
      if (rows <= 0 || rows > batchSize || pads[j] < 0 || pads[j] > rows) {
        throw new IllegalArgumentException("bucketed plan: batch " + j + " has " + rows + " rows and " + pads[j]
            + " padding rows; rows must be in [1, " + batchSize + "] and padding in [0, rows]");
      }
    }
    this.seed = seed;
    this.epoch = epoch;
    this.stream = stream;
    this.carriedIn = carriedIn;
    this.batchSize = batchSize;
    this.batchCount = pads.length;
    this.lastRows = 0;
    this.lastPad = 0;
    this.starts = starts;
    this.pads = pads;
    this.keys = keys;
    this.position = position;
  }

  /**
   * A bucketed plan: batch {@code j} is {@code stream[starts[j], starts[j + 1])}, the last {@code
   * pads[j]} of its rows padding, from the bucket {@code keys[j]}.
   *
   * @param batchSize the most rows any batch has (the size of the engine's index buffers)
   * @param starts the batches' start offsets, then the stream's end ({@code batches + 1} entries, from 0)
   * @throws IllegalArgumentException if the arrays do not describe one list of non-empty batches
   *     of at most {@code batchSize} rows
   */
  static EpochPlan bucketed(long seed, int epoch, int[] stream, int[] carriedIn, int batchSize, int[] starts,
      int[] pads, int[] keys, int position) {
    return new EpochPlan(seed, epoch, stream, carriedIn, batchSize, starts, pads, keys, position);
  }

  /**
   * The seed the epoch was planned with, which its batches carry down to the row writers ({@link
   * BatchSlot#seed()}) with the epoch: nothing below asks the provider for it.
   */
  long seed() {
    return seed;
  }

  int epoch() {
    return epoch;
  }

  /** The batches of the epoch (of a streaming epoch: those cut so far). */
  int batchCount() {
    return batchCount;
  }

  /**
   * Whether the epoch has a batch {@code j}: below {@link #batchCount()}; a streaming epoch reads its
   * source up to that batch first (under the engine's write lock, on the consumer's thread).
   */
  boolean hasBatch(int j) {
    return j < batchCount;
  }

  /**
   * Where entry {@code e} of a batch's indices lies in the source, for {@link
   * BatchSlot#sampleIndices()}: null when the entries are the sample indices themselves (every
   * planned form), else the index of the sample at window position {@code e}.
   */
  long @Nullable [] sourceIndices() {
    return null;
  }

  /**
   * What stops the source this epoch reads when the epoch ends or its iterator is dropped (a
   * streaming pass's iterator); null for an epoch planned in advance, which holds nothing open. It
   * must hold no reference to the iterator, for the cleaner to run once that is collected.
   */
  @Nullable Runnable closer() {
    return null;
  }

  /** Whether batches are written on the consumer's thread only: a streaming epoch reads its source there. */
  boolean streamed() {
    return false;
  }

  /** The most rows a batch of this plan has: the full batch size. */
  int batchSize() {
    return batchSize;
  }

  /** The rows of batch {@code j}, padding included. */
  int rows(int j) {
    checkBatch(j);
    int[] s = starts;
    if (s != null) {
      return s[j + 1] - s[j];
    }
    return j == batchCount - 1 ? lastRows : batchSize;
  }

  /** The padding rows at the end of batch {@code j}. */
  int pad(int j) {
    checkBatch(j);
    int[] p = pads;
    if (p != null) {
      return p[j];
    }
    return j == batchCount - 1 ? lastPad : 0;
  }

  /**
   * The epoch position of row 0 of batch {@code j}: row {@code r} is the epoch's sample number
   * {@code firstPosition(j) + r} (the rows of all batches before it, counted in delivery order).
   */
  long firstPosition(int j) {
    checkBatch(j);
    return start(j);
  }

  /**
   * The bucket of batch {@code j}, the bound of its bucket (MXNet's {@code bucket_key}), or {@link
   * #NO_BUCKET} when the plan is not bucketed.
   */
  int bucketKey(int j) {
    checkBatch(j);
    int[] k = keys;
    return k != null ? k[j] : NO_BUCKET;
  }

  /** The rows of batch {@code j} that hold samples (not a constant). */
  int sampleRows(int j) {
    int rows = rows(j);
    int pad = pad(j);
    // Constant padding fills every padding row of a batch, so the last row tells.
    return pad > 0 && stream[start(j) + rows - 1] == CONSTANT_PAD ? rows - pad : rows;
  }

  /** Copies the sample indices of batch {@code j} into {@code out[0, rows(j))}. Thread-safe. */
  void indices(int j, int[] out) {
    System.arraycopy(stream, start(j), out, 0, rows(j));
  }

  /** The number of batches delivered so far (or the restored position). */
  int position() {
    return position;
  }

  /** Counts one more delivered batch. */
  void delivered() {
    position++;
  }

  /** Sets the batches delivered: a streaming epoch read past its first {@code position} batches by a restore. */
  void seek(int position) {
    this.position = position;
  }

  /** Maps a stream entry to a sample index. */
  interface SampleMap {
    /**
     * The sample at stream entry {@code at}, which holds {@code position}; {@code padding} is true
     * for the padding rows of a batch.
     */
    int map(int at, int position, boolean padding);
  }

  /** Replaces every entry but constant padding by {@code map}'s sample index (drawn orders). */
  void mapSamples(SampleMap map) {
    for (int j = 0; j < batchCount; j++) {
      int from = start(j);
      int end = from + rows(j);
      int padFrom = end - pad(j);
      for (int at = from; at < end; at++) {
        int p = stream[at];
        if (p != CONSTANT_PAD) {
          stream[at] = map.map(at, p, at >= padFrom);
        }
      }
    }
  }

  int[] carriedIn() {
    return carriedIn;
  }

  /** The stream offset of batch {@code j}, unchecked. */
  private int start(int j) {
    int[] s = starts;
    return s != null ? s[j] : j * batchSize;
  }

  void checkBatch(int j) {
    if (j < 0 || j >= batchCount) {
      throw new IndexOutOfBoundsException("batch " + j + " of an epoch with " + batchCount + " batches");
    }
  }

  @Override
  public String toString() {
    // Through rows() and indices(), which a plan reading another's stream overrides.
    StringBuilder sb = new StringBuilder("epoch ").append(epoch).append(':');
    int[] row = new int[batchSize];
    for (int j = 0; j < batchCount; j++) {
      sb.append(' ');
      if (keys != null) {
        sb.append(bucketKey(j)).append('=');
      }
      indices(j, row);
      sb.append(Arrays.toString(Arrays.copyOf(row, rows(j))));
    }
    return sb.toString();
  }
}
