package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderFixture;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@link ShardProvider} over shard sets written from {@link IndexedSamples}: sample {@code i} of a
 * set of {@code n} is data {@code [i, 10000 + i]} (float32, column {@code data}) and label {@code
 * 20000 + i} (int32, column {@code softmax_label}), in files of {@code max(3, n / 8)} samples, so
 * even 10 samples span several files and the last one is shorter (3, 3, 3, 1).
 *
 * <ul>
 *   <li>{@link Mode#SINGLE}: {@code ShardProvider.builder(set)}, every reading default (elastic
 *       shards, read-ahead 2, a shuffle window larger than the set), the set read through {@code
 *       slowfs} with its second file slow to open, so the read-ahead thread runs in mid-epoch.
 *   <li>{@link Mode#MIX}: {@code ShardProvider.mix()} of that set (weight 1) and a second set of 5
 *       samples whose weight, 1e-4, gives it no sample of an epoch of {@code samplesPerEpoch(n)}:
 *       the epochs run through the mix's streams (the first set's epoch {@code e} is positions
 *       {@code [e n, (e + 1) n)} of its stream, its shuffle seeded from the provider's), the files
 *       are numbered across both sets, and sample indices count the first set's samples from 0.
 *       The second set holds the data of samples 9000 .., which no expectation names.
 *   <li>{@link Mode#READERS}: as SINGLE, with batches written ahead by two reader threads.
 * </ul>
 *
 * A mix whose sets take turns has another source order than its sample indices, which the
 * contract's exact orders cannot describe; {@code MixedShardSetsTest} checks its orders by hand.
 */
final class ShardSetFixture implements ProviderFixture {
  /** How the provider reads the set. */
  enum Mode {
    SINGLE, MIX, READERS
  }

  /** The weight of the mix's second set: no sample of it in an epoch of up to 1000 samples. */
  private static final double UNUSED_WEIGHT = 1e-4;
  /** The samples of the mix's second set. */
  private static final int UNUSED_SAMPLES = 5;
  /** How long opening each set's second file takes in SINGLE and MIX (see {@link #build}). */
  private static final long SLOW_MS = 50;

  private final Mode mode;
  private final Path dir;
  private final Map<Integer, String> sets = new HashMap<>();
  private @Nullable String unused;

  ShardSetFixture(Mode mode, Path dir) {
    this.mode = mode;
    this.dir = dir;
  }

  @Override
  public Set<Capability> capabilities() {
    Set<Capability> c = EnumSet.copyOf(ProviderFixture.randomAccess());
    c.add(Capability.THREADED); // the read-ahead thread, and the reader threads
    return c;
  }

  @Override
  public ShardProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
    String local = sets.computeIfAbsent(numSamples, n -> write("set-" + n, 0, n));
    if (mode == Mode.READERS) {
      return ShardProvider.builder(local).readers(2).apply(settings).build();
    }
    // Without reader threads the read-ahead thread is the only one, and it runs only while it loads a
    // file: a file served in place loads in well under a millisecond, so the contract's look for a
    // thread in mid-epoch would race it. Its second file takes SLOW_MS to open, so the thread that
    // reads it ahead while the first batch is taken is certainly running then.
    String set = "slowfs://" + local;
    org.apache.hadoop.conf.Configuration slow = SlowFileSystem.conf("part-00001", SLOW_MS);
    if (mode == Mode.SINGLE) {
      return ShardProvider.builder(set).configuration(slow).apply(settings).build();
    }
    if (unused == null) {
      unused = write("unused", 9000, UNUSED_SAMPLES);
    }
    // The premise of the mode: the first set gives every sample of an epoch.
    assertArrayEquals(new int[] {numSamples, 0}, MixOrder.quotas(new double[] {1, UNUSED_WEIGHT}, numSamples),
        "quotas of an epoch of " + numSamples);
    return ShardProvider.mix().source(set, 1).source("slowfs://" + unused, UNUSED_WEIGHT).samplesPerEpoch(numSamples)
        .configuration(slow).apply(settings).build();
  }

  @Override
  public boolean holds(Batch batch, int row, long sample) {
    return IndexedSamples.holds(batch, row, sample);
  }

  /** A shard set of the samples {@code first .. first + n - 1} in files of {@code max(3, n / 8)}. */
  private String write(String name, int first, int n) {
    String location = dir.resolve(name).toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder()
        .data("data", Nd4j.create(IndexedSamples.data(first, first + n)))
        .label("softmax_label", Nd4j.createFromArray(IndexedSamples.labels(first, first + n)))
        .batchSize(64).build()) {
      ShardWriter.builder().samplesPerFile(Math.max(3, n / 8)).build().write(source, location);
    }
    return location;
  }
}
