package dev.minibatch.runtime.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reads epochs and checks every batch right after {@code next()} returned it (a batch is only valid
 * until the iterator moves on): its bookkeeping ({@code rows}, {@code pad}, {@code countSamples},
 * {@code sampleIndices}) and that every row holds the sample its {@code sampleIndex} names, or the
 * padding constants.
 */
final class Batches {
  private Batches() {}

  /** The sample indices of the batches of one epoch, and each batch's {@code pad()}. */
  record Epoch(List<List<Long>> indices, List<Integer> pads) {
    /** Every delivered sample index, padding rows included, in order. */
    List<Long> flat() {
      return indices.stream().flatMap(List::stream).toList();
    }

    /** The indices of the rows that are not padding, in order. */
    List<Long> samples() {
      List<Long> out = new ArrayList<>();
      for (int j = 0; j < indices.size(); j++) {
        List<Long> b = indices.get(j);
        out.addAll(b.subList(0, b.size() - pads.get(j)));
      }
      return out;
    }
  }

  /** One complete epoch: a new iterator, read to its end and closed. */
  static Epoch epoch(ProviderFixture f, BatchProvider<? extends Batch> p, @Nullable Map<String, Double> padding) {
    try (BatchIterator<? extends Batch> it = p.iterator()) {
      return rest(f, it, padding);
    }
  }

  /** The batches {@code it} has left. */
  static Epoch rest(ProviderFixture f, BatchIterator<? extends Batch> it, @Nullable Map<String, Double> padding) {
    List<List<Long>> indices = new ArrayList<>();
    List<Integer> pads = new ArrayList<>();
    while (it.hasNext()) {
      Batch b = it.next();
      indices.add(check(f, b, padding, "batch " + indices.size()));
      pads.add(b.pad());
    }
    return new Epoch(indices, pads);
  }

  /**
   * Checks one batch and returns its sample indices. Rows whose index is -1 must be the last
   * {@code pad()} rows and hold {@code padding}'s constant for each name; without {@code padding},
   * no row may be a constant pad.
   */
  static List<Long> check(ProviderFixture f, Batch b, @Nullable Map<String, Double> padding, String where) {
    int rows = b.rows();
    int pad = b.pad();
    assertTrue(pad >= 0 && pad <= rows, where + ": pad " + pad + " outside [0, rows = " + rows + "]");
    assertEquals(rows - pad, b.countSamples(), where + ": countSamples() != rows() - pad()");
    List<INDArray> arrays = arrays(b);
    List<String> names = b.names();
    assertEquals(names.size(), arrays.size(), where + ": names() " + names + " vs data() + label()");
    for (int a = 0; a < arrays.size(); a++) {
      assertEquals(rows, arrays.get(a).size(0), where + ": array '" + names.get(a) + "' has another row count than rows()");
    }
    long[] indices = b.sampleIndices();
    assertEquals(rows, indices.length, where + ": sampleIndices() length");
    List<Long> out = new ArrayList<>(rows);
    for (int r = 0; r < rows; r++) {
      long i = b.sampleIndex(r);
      assertEquals(i, indices[r], where + ": sampleIndices()[" + r + "] != sampleIndex(" + r + ")");
      out.add(i);
      if (i >= 0) {
        if (!f.holds(b, r, i)) {
          fail(where + " row " + r + ": sampleIndex is " + i + " but the row holds " + describe(b, r)
              + " (batch indices " + Arrays.toString(indices) + ")");
        }
        continue;
      }
      assertEquals(-1, i, where + " row " + r + ": a negative sample index other than -1");
      assertTrue(r >= rows - pad, where + " row " + r + ": a constant pad row (index -1) among the real rows (pad "
          + pad + ")");
      if (padding == null) {
        fail(where + " row " + r + ": a constant pad row (index -1) without PAD_CONSTANT");
      }
      for (int a = 0; a < arrays.size(); a++) {
        Double value = padding.get(names.get(a));
        if (value == null) {
          fail(where + ": no padding constant expected for '" + names.get(a) + "'");
        }
        if (!RowValues.allEqual(arrays.get(a), r, value)) {
          fail(where + " row " + r + ": '" + names.get(a) + "' should be padded with " + value + " but holds "
              + Arrays.toString(RowValues.of(arrays.get(a), r)));
        }
      }
    }
    return out;
  }

  /** The data arrays, then the label arrays: the order of {@link Batch#names()}. */
  static List<INDArray> arrays(Batch b) {
    List<INDArray> all = new ArrayList<>(b.data());
    all.addAll(b.label());
    return all;
  }

  /** Every array's row {@code r}, by name, for messages. */
  static String describe(Batch b, int r) {
    List<INDArray> arrays = arrays(b);
    List<String> names = b.names();
    StringBuilder sb = new StringBuilder("{");
    for (int a = 0; a < arrays.size(); a++) {
      if (a > 0) {
        sb.append(", ");
      }
      sb.append(a < names.size() ? names.get(a) : "#" + a).append('=').append(Arrays.toString(RowValues.of(arrays.get(a), r)));
    }
    return sb.append('}').toString();
  }

  /** Batches of sample indices, for expectations: {@code ids(new int[] {0, 1, 2}, new int[] {3})}. */
  static List<List<Long>> ids(int[]... batches) {
    List<List<Long>> out = new ArrayList<>();
    for (int[] b : batches) {
      out.add(Arrays.stream(b).mapToObj(i -> (long) i).toList());
    }
    return out;
  }
}
