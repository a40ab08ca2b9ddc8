package dev.minibatch.runtime.spi;

import dev.minibatch.DType;
import dev.minibatch.shape.Shape;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One array of a source's samples, by sample index: what a file format loads and the batching
 * engine copies rows from (e.g. {@code IdxFile.IdxArray.rows}, whose rows stay the file's bytes
 * and are decoded into each batch). The runtime's own implementations copy rows in bulk.
 */
public interface Rows {
  /** The number of samples. */
  int rows();

  /** One sample's shape, without the sample axis. */
  Shape sampleShape();

  /** The element type of the batches these rows are copied into. */
  DType dtype();

  /**
   * Sample {@code i} without the sample axis: a view where the rows are an array, else a new array.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < rows()}
   */
  INDArray row(int i);
}
