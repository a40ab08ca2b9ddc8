package dev.minibatch.runtime.internal.settings;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sampling settings every provider shares, checked and resolved once, when the provider is
 * built: batch size, last-batch policy and padding values, shuffle and seed, and sharding.
 * Immutable; made by a {@link ProviderBuilder}. Everything below the builder reads these values and
 * decides nothing again: the seed is always set ({@link #seeded()} says whether the user chose it)
 * and {@link #batchRows(int)} is the one reading of batch size 0.
 *
 * @param batchSize rows per batch; 0 means the whole shard as one batch ({@link #batchRows})
 * @param lastBatch what happens to the leftover samples
 * @param shuffle whether every epoch uses a new permutation
 * @param seed the seed of every random draw (shuffles, class draws): the user's, or one drawn from
 *     the JVM's entropy source when the settings were made ({@link Seeds#unseeded()})
 * @param seeded whether {@code seed} is the user's
 * @param numParts the number of parts (shards) the samples are divided into
 * @param partIndex the part this provider reads
 * @param evenShards every part gets the same number of samples, {@code ceil(n / numParts)},
 *     topped up by repeating the epoch's first samples (PyTorch's DistributedSampler); with {@code
 *     elasticShards}, the same number of batches
 * @param elasticShards the parts take turns at the batches of one global order (batch {@code j} of
 *     the epoch goes to part {@code j mod numParts}), so a state saved under one part count resumes
 *     under another
 * @param padding the constants for {@link LastBatch#PAD_CONSTANT}
 * @param badSamples what to do with a sample that cannot be read
 */
public record Sampling(
    int batchSize,
    LastBatch lastBatch,
    boolean shuffle,
    long seed,
    boolean seeded,
    int numParts,
    int partIndex,
    boolean evenShards,
    boolean elasticShards,
    Padding padding,
    BadSamplePolicy badSamples) {

  /**
   * The constants that pad rows under {@link LastBatch#PAD_CONSTANT}.
   *
   * @param byName constants by provided name
   * @param data the constant for data names not in {@code byName} (MXNet.jl {@code data_padding})
   * @param label the constant for label names not in {@code byName} (MXNet.jl {@code label_padding})
   */
  public record Padding(Map<String, Double> byName, double data, double label) {
    /** No constants: every name pads with 0. */
    public static final Padding ZERO = new Padding(Map.of(), 0, 0);

    /** A defensive, ordered copy. */
    public Padding {
      byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
    }

    /** The padding constant for a provided name. */
    public double valueFor(String name, boolean isLabel) {
      Double v = byName.get(name);
      return v != null ? v : (isLabel ? label : data);
    }
  }

  /** Checks the settings that do not depend on the data. */
  public Sampling {
    checkBatchSize(batchSize);
    if (numParts < 1) {
      throw new IllegalArgumentException("numParts must be >= 1, got " + numParts);
    }
    if (partIndex < 0 || partIndex >= numParts) {
      throw new IllegalArgumentException("partIndex must be in [0, " + numParts + "), got " + partIndex);
    }
    if (shuffle && numParts > 1 && !seeded) {
      throw new IllegalArgumentException("shuffle with numParts = " + numParts
          + " needs an explicit seed: every part must draw the same permutation for the parts to be disjoint");
    }
    if (elasticShards && batchSize == 0) {
      throw new IllegalArgumentException("elasticShards deals batches to the parts and needs a batch size >= 1, got 0"
          + " (the whole data as one batch)");
    }
  }

  /**
   * The one check of a batch size, for the builder's setter and these settings alike.
   *
   * @throws IllegalArgumentException if {@code batchSize < 0}
   */
  public static int checkBatchSize(int batchSize) {
    if (batchSize < 0) {
      throw new IllegalArgumentException("batch size must be >= 1 (or 0 for the whole shard as one batch), got " + batchSize);
    }
    return batchSize;
  }

  /**
   * Batch size 0 (the whole shard as one batch), PARTIAL, no shuffle, a drawn seed, one shard,
   * padding 0, failing at a bad sample.
   */
  public static Sampling defaults() {
    return new Sampling(0, LastBatch.PARTIAL, false, Seeds.unseeded(), false, 1, 0, false, false, Padding.ZERO, BadSamplePolicy.FAIL);
  }

  /** Rows of a full batch for a shard of {@code shardSize} samples: the batch size, or the shard size for 0. */
  public int batchRows(int shardSize) {
    return batchSize == 0 ? shardSize : batchSize;
  }

  /**
   * The samples part {@code partIndex} of {@code numParts} visits per epoch out of {@code
   * numSamples}: the contiguous block {@code [floor(p*n/k), floor((p+1)*n/k))}, or {@code ceil(n/k)}
   * with {@code evenShards}. The one shard rule, for the engine and for providers that check their
   * source against the settings before building it.
   */
  public int shardSize(int numSamples) {
    int k = numParts;
    int p = partIndex;
    return evenShards ? (int) ((numSamples + (long) k - 1) / k)
        : (int) ((long) (p + 1) * numSamples / k - (long) p * numSamples / k);
  }

  /** These settings with another batch size and last-batch policy. */
  public Sampling withBatch(int batchSize, LastBatch lastBatch) {
    return new Sampling(batchSize, lastBatch, shuffle, seed, seeded, numParts, partIndex, evenShards, elasticShards, padding, badSamples);
  }

  /**
   * The settings of the whole data set that elastic parts take turns at: one part, the same
   * order, batch size, last-batch policy and padding.
   */
  public Sampling global() {
    return new Sampling(batchSize, lastBatch, shuffle, seed, seeded, 1, 0, false, false, padding, badSamples);
  }

  /** These settings with another order: shuffled or not, with the user's seed {@code seed}. */
  public Sampling withOrder(boolean shuffle, long seed) {
    return new Sampling(batchSize, lastBatch, shuffle, seed, true, numParts, partIndex, evenShards, elasticShards, padding, badSamples);
  }

  /** The padding constant for a provided name ({@link Padding#valueFor}). */
  public double paddingFor(String name, boolean isLabel) {
    return padding.valueFor(name, isLabel);
  }
}
