package dev.minibatch.runtime.contract;

import dev.minibatch.runtime.Batch;
import java.util.stream.IntStream;

/**
 * A ready-made encoding of the sample index for fixtures with one data and one label array:
 * sample {@code i} has data row {@code [i, 10000 + i]} and label {@code 20000 + i}. The two data
 * columns catch rows whose halves come from different samples, and the label offset catches
 * labels taken from the data or from another sample. Exact in float32 and int32 for {@code i <
 * 10000}.
 */
public final class IndexedSamples {
  /** The second data column of sample {@code i} is {@code DATA_OFFSET + i}. */
  public static final int DATA_OFFSET = 10_000;
  /** The label of sample {@code i} is {@code LABEL_OFFSET + i}. */
  public static final int LABEL_OFFSET = 20_000;

  private IndexedSamples() {}

  /** Sample {@code i}'s data row. */
  public static float[] data(int i) {
    return new float[] {i, DATA_OFFSET + i};
  }

  /** Sample {@code i}'s label. */
  public static int label(int i) {
    return LABEL_OFFSET + i;
  }

  /** The data rows of samples {@code from .. to - 1}. */
  public static float[][] data(int from, int to) {
    return IntStream.range(from, to).mapToObj(IndexedSamples::data).toArray(float[][]::new);
  }

  /** The labels of samples {@code from .. to - 1}. */
  public static int[] labels(int from, int to) {
    return IntStream.range(from, to).map(IndexedSamples::label).toArray();
  }

  /** Whether row {@code row} of a batch with one data and one label array holds sample {@code i}. */
  public static boolean holds(Batch batch, int row, long i) {
    return batch.data().size() == 1 && batch.label().size() == 1
        && RowValues.equals(batch.data().get(0), row, i, DATA_OFFSET + i)
        && RowValues.equals(batch.label().get(0), row, LABEL_OFFSET + i);
  }
}
