package dev.minibatch.runtime.io;

import dev.minibatch.runtime.pipeline.SampleContext;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A process function (Data Provider Core's {@code process}): turns one sample into what the batch
 * holds. It runs on the provider's reader threads, concurrently: it must not rely on
 * unsynchronised shared state. The returned sample must hold the same names in the same order, each
 * array with the sample shape the provider declares (any element type; it is converted to the
 * batch's). The input's arrays are views of the loaded data: do not write into them.
 *
 * <p>Random augmentation must draw from {@link SampleContext#random()}, seeded from (seed, epoch,
 * position in the epoch) alone, so the batches are the same for any number of reader threads.
 */
@FunctionalInterface
public interface SampleProcessor {
  /** Processes {@code sample}; {@code context} gives its position in the epoch and a random generator. */
  Sample apply(Sample sample, SampleContext context);

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

  /**
   * Reading or processing one sample failed on a reader thread. It reaches the consumer as the cause
   * of a {@link dev.minibatch.runtime.pipeline.StageFailedException} naming the stage; this exception
   * names the sample's index and where it comes from (for HDF5: the file, the datasets and the row),
   * and its own cause is the original exception.
   */
  public static final class SampleException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int sampleIndex;

    /**
     * A failure on sample {@code sampleIndex}, whose origin is described by {@code origin}.
     *
     * @param sampleIndex the sample's index in the provider (its source order)
     * @param origin where the sample comes from, e.g. {@code "file a.h5, datasets [x, y], row 3"}
     * @param what what was being done, e.g. {@code "the process function failed"}
     * @param cause the original exception
     */
    public SampleException(int sampleIndex, String origin, String what, Throwable cause) {
      super("sample " + sampleIndex + " (" + origin + "): " + what + ": " + cause, cause);
      this.sampleIndex = sampleIndex;
    }

    /** The sample's index in the provider (its source order). */
    public int sampleIndex() {
      return sampleIndex;
    }
  }
}
