package dev.minibatch.runtime.io.mnist;

import dev.minibatch.runtime.io.Format;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The idx format's own options ({@link Format.Options.Builder#with}).
 *
 * @param labels the labels file of an images file; null: the MNIST sibling ({@code
 *     t10k-images-idx3-ubyte.gz} → {@code t10k-labels-idx1-ubyte.gz}), when it exists
 */
public record IdxOptions(@Nullable Path labels) implements Format.OwnOptions {
  /** The labels file detected: the MNIST sibling. */
  public static final IdxOptions DETECTED = new IdxOptions(null);
}
