package dev.minibatch.runtime.interop;

import dev.minibatch.DType;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Turns one label array of class indices ({@code [rows]} or {@code [rows, 1]}, any numeric dtype)
 * into one-hot rows ({@code [rows, classes]}, float), the form DL4J's softmax losses expect. The
 * output is one reused buffer, allocated outside workspaces, valid until the next call: the same
 * lifetime as the provider's batch it came from.
 */
final class OneHot {
  private final String label;
  private final int classes;
  private final INDArray buffer;
  private final float[] rows;

  OneHot(String label, int classes, int capacity) {
    this.label = label;
    this.classes = classes;
    this.buffer = HostArrays.allocate(DType.FLOAT32, capacity, classes);
    this.rows = new float[Math.multiplyExact(capacity, classes)];
  }

  int classes() {
    return classes;
  }

  /**
   * The one-hot rows of {@code indices}, the label array of {@code batch} (whose rows it has). A
   * row padded with a constant ({@link Batch#sampleIndex} -1) has no class: all zeros, which no
   * loss counts against a prediction; a row padded by wrapping repeats its sample's class.
   *
   * @throws IllegalArgumentException if a sample's value is not a class index in {@code [0,
   *     classes)}, naming the label, the sample and the value
   */
  INDArray encode(Batch batch, INDArray indices) {
    int n = Math.toIntExact(indices.size(0));
    int length = n * classes;
    Arrays.fill(rows, 0, length, 0f);
    for (int r = 0; r < n; r++) {
      double v = indices.getDouble(r);
      boolean valid = v >= 0 && v < classes && v == Math.rint(v);
      long sample = batch.sampleIndex(r);
      if (valid) {
        rows[r * classes + (int) v] = 1f;
      } else if (sample >= 0) {
        throw new IllegalArgumentException("label '" + label + "' of sample " + sample + " is "
            + (v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v)) + "; oneHot(" + classes
            + ") needs a class index 0.." + (classes - 1));
      }
    }
    HostArrays.window(buffer, 0, length).asFloatBuffer().put(rows, 0, length);
    HostArrays.hostWritten(buffer);
    return n == buffer.size(0) ? buffer : buffer.get(NDArrayIndex.interval(0, n), NDArrayIndex.all());
  }
}
