package dev.minibatch.runtime;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One mini-batch: named arrays with the batch axis first. Padded rows, if any, are the last {@link
 * #pad()} rows. A batch is valid until its iterator moves on; {@link #copy()} detaches it.
 */
public interface Batch {
  /** The number of real (not padded) samples: {@link #rows()} minus {@link #pad()}. */
  int countSamples();

  /** The number of padding rows at the end of the batch. */
  int pad();

  /** The number of rows of every array in the batch (axis 0), padding included. */
  int rows();

  /** The data arrays, in the provider's declared order. */
  List<INDArray> data();

  /** The label arrays, in the provider's declared order. */
  List<INDArray> label();

  /** The provided names, data names first, then labels. */
  List<String> names();

  /**
   * The array provided under {@code name}.
   *
   * @throws IllegalArgumentException if there is no such name; the message lists the known names
   */
  INDArray get(String name);

  /**
   * The index in the source of the sample at {@code row}; for a row padded with a constant, -1.
   * Rows padded by wrapping name the sample they repeat.
   */
  long sampleIndex(int row);

  /** {@link #sampleIndex(int)} for every row, in a new array. */
  long[] sampleIndices();

  /**
   * Copies each data array's rows into its targets (MXNet.jl {@code load_data!}): {@code targets}
   * holds one list per data name, in {@link #data()} order; each {@link SlicedNDArray} receives
   * exactly the rows of its range.
   *
   * @throws IllegalArgumentException if the number of lists differs from the number of data arrays,
   *     or a target's shape does not fit its range
   */
  void loadData(List<? extends List<SlicedNDArray>> targets);

  /** {@link #loadData} for the labels. */
  void loadLabel(List<? extends List<SlicedNDArray>> targets);

  /**
   * A view of rows {@code [from, to)}: arrays are views, the pad is the part of this batch's padding
   * that falls in the range.
   */
  Batch slice(int from, int to);

  /**
   * Splits the batch across devices, evenly ({@link BatchSplitter#even}), and places each part on
   * its device: on the CPU a part is a view, on a GPU a copy in that device's memory.
   */
  List<? extends Batch> split(List<Device> devices);

  /** A deep copy that stays valid after the iterator moves on. */
  Batch copy();

  /**
   * The mask of the variable axis of {@code name} ({@code [rows, T]}, 1 for a sample's real steps,
   * 0 for padded steps and padding rows), or null if {@code name} has no variable axis. Members
   * that share a length ({@code sameLengthAs}) share one mask.
   *
   * @throws IllegalArgumentException if the batch has no array {@code name}
   */
  default @org.jspecify.annotations.Nullable INDArray mask(String name) {
    get(name);
    return null;
  }

  /**
   * The length of each row along the variable axis of {@code name} ({@code [rows]}, int32, 0 for
   * padding rows), or null if {@code name} has no variable axis.
   *
   * @throws IllegalArgumentException if the batch has no array {@code name}
   */
  default @org.jspecify.annotations.Nullable INDArray lengths(String name) {
    get(name);
    return null;
  }

  /**
   * The bucket this batch was drawn from: the bucket's bound on the variable axis (MXNet's {@code
   * bucket_key}), or -1 when the provider does not bucket.
   */
  default int bucketKey() {
    return -1;
  }

  /**
   * A destination for a range of batch rows (MXNet.jl's {@code SlicedNDArray}): rows {@code [from,
   * to)} of the batch are copied into {@code target}, whose axis 0 must be {@code to - from} long.
   *
   * @param from first batch row, inclusive
   * @param to last batch row, exclusive
   * @param target where the rows go, usually an array on one device
   */
  public record SlicedNDArray(int from, int to, INDArray target) {
    /** Checks the range. */
    public SlicedNDArray {
      if (from < 0 || to <= from) {
        throw new IllegalArgumentException("invalid row range [" + from + ", " + to + ")");
      }
    }
  }
}
