package dev.minibatch.runtime;

import dev.minibatch.runtime.check.Check;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Divides the rows of a batch into one contiguous range per device, evenly or by weights (MXNet's
 * {@code work_load_list}). A split that would leave a device without rows is rejected.
 */
final class BatchSplitter {
  private BatchSplitter() {}

  /**
   * Even split, as MXNet.jl's {@code _split_inputs}: every part gets {@code rows / parts} rows and
   * the first {@code rows % parts} parts one more. 10 rows in 3 parts: [0, 4) [4, 7) [7, 10).
   *
   * @throws IllegalArgumentException if {@code parts < 1} or {@code rows < parts}
   */
  public static List<SampleRange> even(int rows, int parts) {
    Check.atLeast("parts", parts, 1);
    if (rows < parts) {
      throw new IllegalArgumentException("cannot split a batch of " + rows + " rows across " + parts
          + " devices: " + (parts - rows) + " device(s) would get no samples; use a batch of at least "
          + parts + " rows or fewer devices");
    }
    int base = rows / parts;
    int extra = rows % parts;
    List<SampleRange> out = new ArrayList<>(parts);
    int from = 0;
    for (int i = 0; i < parts; i++) {
      int to = from + base + (i < extra ? 1 : 0);
      out.add(new SampleRange(from, to));
      from = to;
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * Split by relative work load, as MXNet's {@code _split_input_slice}: part {@code i} gets {@code
   * round(w_i * rows / sum(w))} rows (round half to even, like Python's {@code round}); when the
   * rounded counts fall short the last part takes the rest; when they overshoot the last parts are
   * cut at the end of the batch.
   *
   * @throws IllegalArgumentException for no weights, a weight that is not positive and finite, or a
   *     split that leaves a device with no rows (the message names it)
   */
  public static List<SampleRange> weighted(int rows, double... weights) {
    if (weights.length == 0) {
      throw new IllegalArgumentException("weighted split needs at least one weight");
    }
    double total = 0;
    for (int i = 0; i < weights.length; i++) {
      total += Check.positive("work load weight " + i, weights[i]);
    }
    int[] counts = new int[weights.length];
    long sum = 0;
    for (int i = 0; i < weights.length; i++) {
      counts[i] = (int) Math.rint(weights[i] * rows / total);
      sum += counts[i];
    }
    if (sum < rows) {
      counts[counts.length - 1] += (int) (rows - sum);
    }
    List<SampleRange> out = new ArrayList<>(weights.length);
    int from = 0;
    for (int i = 0; i < counts.length; i++) {
      int to = Math.min(from + counts[i], rows);
      if (to <= from) {
        throw new IllegalArgumentException("cannot split a batch of " + rows + " rows by work loads "
            + java.util.Arrays.toString(weights) + ": device " + i + " would get no samples");
      }
      out.add(new SampleRange(from, to));
      from = to;
    }
    return Collections.unmodifiableList(out);
  }
}
