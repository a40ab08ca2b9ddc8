package dev.minibatch.runtime;

import org.nd4j.linalg.api.ndarray.INDArray;

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

  /** A target for {@code range}. */
  public static SlicedNDArray of(SampleRange range, INDArray target) {
    return new SlicedNDArray(range.from(), range.to(), target);
  }
}
