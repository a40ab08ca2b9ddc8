package dev.minibatch.runtime.io;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One sample of a file provider: its index in the source and one array per provided name (views of
 * the loaded data, without the batch axis), data names first.
 *
 * @param index the sample's index in the source
 * @param names the provided names, in order
 * @param arrays the sample's array for each name
 */
public record Sample(int index, List<String> names, List<INDArray> arrays) {
  /** Checks that names and arrays match. */
  public Sample {
    names = List.copyOf(names);
    arrays = List.copyOf(arrays);
    if (names.size() != arrays.size()) {
      throw new IllegalArgumentException(names.size() + " names for " + arrays.size() + " arrays");
    }
  }

  /**
   * The array provided under {@code name}.
   *
   * @throws IllegalArgumentException naming the known names if there is no such name
   */
  public INDArray get(String name) {
    int i = names.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException("no array named '" + name + "'; names are " + names);
    }
    return arrays.get(i);
  }
}
