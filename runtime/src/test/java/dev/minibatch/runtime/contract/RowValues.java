package dev.minibatch.runtime.contract;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Reads one row of a batch array, for {@link ProviderFixture#holds} implementations and messages. */
public final class RowValues {
  private RowValues() {}

  /** The elements of row {@code row} of {@code array} (axis 0), row-major, as doubles. */
  public static double[] of(INDArray array, int row) {
    if (array.rank() == 1) {
      return new double[] {array.getDouble(row)};
    }
    INDArray r = array.slice(row, 0);
    double[] out = new double[(int) r.length()];
    // Element by element rather than through data(): the slice of a reused buffer is a view with
    // an offset, and every dtype (uint8, int32, float64) must read back as its value.
    long[] shape = r.shape();
    long[] at = new long[shape.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = r.getDouble(at);
      for (int d = at.length - 1; d >= 0; d--) {
        if (++at[d] < shape[d]) {
          break;
        }
        at[d] = 0;
      }
    }
    return out;
  }

  /** Whether row {@code row} of {@code array} is exactly {@code expected}. */
  public static boolean equals(INDArray array, int row, double... expected) {
    return Arrays.equals(of(array, row), expected);
  }

  /** Whether every element of row {@code row} of {@code array} is {@code value}. */
  public static boolean allEqual(INDArray array, int row, double value) {
    for (double v : of(array, row)) {
      if (v != value) {
        return false;
      }
    }
    return true;
  }
}
