package dev.minibatch.runtime;

import dev.minibatch.LastBatch;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The sampling settings every random-access provider shares: batch size, last-batch policy and
 * padding values, shuffle and seed, and sharding. Immutable; made by a {@link ProviderBuilder}.
 *
 * @param batchSize rows per batch; 0 means the whole shard as one batch
 * @param lastBatch what happens to the leftover samples
 * @param shuffle whether every epoch uses a new permutation
 * @param seed the shuffle seed; null means a random seed chosen when the provider is built
 * @param numParts the number of shards the samples are divided into
 * @param partIndex the shard this provider reads
 * @param evenShards every shard gets the same number of samples, {@code ceil(n / numParts)},
 *     topped up by repeating the epoch's first samples (PyTorch's DistributedSampler)
 * @param padding constant padding values by name, for {@link LastBatch#PAD_CONSTANT}
 * @param dataPadding the constant for data names not in {@code padding}
 * @param labelPadding the constant for label names not in {@code padding}
 */
public record Sampling(
    int batchSize,
    LastBatch lastBatch,
    boolean shuffle,
    @Nullable Long seed,
    int numParts,
    int partIndex,
    boolean evenShards,
    Map<String, Double> padding,
    double dataPadding,
    double labelPadding) {

  /** Checks the settings that do not depend on the data. */
  public Sampling {
    if (batchSize < 0) {
      throw new IllegalArgumentException("batch size must be >= 1 (or 0 for the whole shard as one batch), got " + batchSize);
    }
    if (numParts < 1) {
      throw new IllegalArgumentException("numParts must be >= 1, got " + numParts);
    }
    if (partIndex < 0 || partIndex >= numParts) {
      throw new IllegalArgumentException("partIndex must be in [0, " + numParts + "), got " + partIndex);
    }
    if (shuffle && numParts > 1 && seed == null) {
      throw new IllegalArgumentException("shuffle with numParts = " + numParts
          + " needs an explicit seed: every part must draw the same permutation for the parts to be disjoint");
    }
    padding = Collections.unmodifiableMap(new LinkedHashMap<>(padding));
  }

  /** Batch size 0 (the whole shard as one batch), PARTIAL, no shuffle, one part, padding 0. */
  public static Sampling defaults() {
    return new Sampling(0, LastBatch.PARTIAL, false, null, 1, 0, false, Map.of(), 0, 0);
  }

  /** The padding constant for a provided name. */
  public double paddingFor(String name, boolean isLabel) {
    Double v = padding.get(name);
    return v != null ? v : (isLabel ? labelPadding : dataPadding);
  }
}
