package dev.minibatch.runtime.internal.settings;

import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.Settings.Padding;
import dev.minibatch.runtime.check.Check;
import java.util.Map;

/**
 * A provider's {@link Settings}, checked and resolved once, when the provider is built ({@link
 * #resolve}): batch size, last-batch policy and padding values, shuffle and seed, and sharding.
 * Immutable; made from the {@link ProviderBuilder}'s settings. Everything below the builder reads these values and
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
 * @param workers the reader threads and how far ahead they write
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
    BadSamples badSamples,
    Settings.Workers workers) {

  /** Checks the settings that do not depend on the data. */
  public Sampling {
    if (workers.prefetchBuffer() > 0 && workers.readers() == 0) {
      throw new IllegalArgumentException("prefetchBuffer(" + workers.prefetchBuffer() + ") is how far reader threads"
          + " write ahead, and readers is 0 (the consumer's thread writes each batch): set readers(n) too, or leave"
          + " prefetchBuffer unset");
    }
    if (batchSize < 0) {
      // An invariant: Settings.Builder refuses a negative batch size with the user's words.
      throw new IllegalArgumentException("internal: batch size " + batchSize + " < 0");
    }
    Check.atLeast("numParts", numParts, 1);
    Check.inRange("partIndex", partIndex, 0, numParts);
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
   * The settings {@code settings} set, resolved: the only place a provider's settings become the
   * values everything below reads. Without a seed, one is drawn here ({@link Seeds#unseeded()});
   * call it once per provider, when it is built, so everything that provider does reads the same
   * values.
   *
   * @throws IllegalStateException if no batch size was set
   * @throws IllegalArgumentException if the settings do not fit together
   */
  public static Sampling resolve(Settings settings) {
    int batchSize = settings.batchSize().orElseThrow(() -> new IllegalStateException("no batch size: call batchSize(n)"
        + " on the builder (n >= 1, or 0 for the whole shard as one batch), or declare one with"
        + " @DataProvider(batchSize = n)"));
    Settings.Sharding sharding = settings.sharding();
    return new Sampling(batchSize, settings.lastBatch(), settings.shuffle(), settings.seed().orElseGet(Seeds::unseeded),
        settings.seed().isPresent(), sharding.numParts(), sharding.partIndex(), sharding.even(), sharding.elastic(),
        settings.padding(), settings.badSamples(), settings.workers());
  }

  /**
   * Batch size 0 (the whole shard as one batch), PARTIAL, no shuffle, a drawn seed, one shard,
   * padding 0, failing at a bad sample, no reader threads.
   */
  public static Sampling defaults() {
    return new Sampling(0, LastBatch.PARTIAL, false, Seeds.unseeded(), false, 1, 0, false, false, new Padding(Map.of(), 0, 0), BadSamples.fail(),
        new Settings.Workers(0, 0));
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

  /**
   * Where part {@code partIndex}'s block starts in an epoch's order of {@code numSamples}
   * ({@link #shardSize}): {@code floor(p*n/k)}, or {@code p*ceil(n/k)} with {@code evenShards}
   * (a block that runs past the order's end wraps to its start).
   */
  public long partStart(int numSamples) {
    return evenShards ? (long) partIndex * shardSize(numSamples) : (long) partIndex * numSamples / numParts;
  }

  /** These settings with another batch size and last-batch policy. */
  public Sampling withBatch(int batchSize, LastBatch lastBatch) {
    return new Sampling(batchSize, lastBatch, shuffle, seed, seeded, numParts, partIndex, evenShards, elasticShards, padding, badSamples, workers);
  }

  /**
   * The settings of the whole data set that elastic parts take turns at: one part, the same
   * order, batch size, last-batch policy and padding.
   */
  public Sampling global() {
    return new Sampling(batchSize, lastBatch, shuffle, seed, seeded, 1, 0, false, false, padding, badSamples, workers);
  }

  /** These settings with another order: shuffled or not, with the user's seed {@code seed}. */
  public Sampling withOrder(boolean shuffle, long seed) {
    return new Sampling(batchSize, lastBatch, shuffle, seed, true, numParts, partIndex, evenShards, elasticShards, padding, badSamples, workers);
  }

  /** The padding constant for a provided name ({@link Padding#valueFor}). */
  public double paddingFor(String name, boolean isLabel) {
    return padding.valueFor(name, isLabel);
  }
}
